/**
 * Trace summaries (migration 0002), maintained at ingest inside the write transaction: for every
 * (project, trace) the batch touched, the summary row and conversation-turn rows are rewritten from
 * all of the trace's spans. A trace seen for the first time is summarized from the batch itself
 * (bulk imports write whole turns, so this skips a read per trace); a trace that already has a
 * summary is re-read through the unique key. The header rules are the chat view's own
 * (domain/chat/header.ts), so a summary and a freshly built turn never disagree.
 */
import type { Db } from '../open.js';
import type { StatusCode } from '../../../domain/span.js';
import type { SummaryMaintainer, SummarySpan } from './index.js';
import { buildTree } from '../../../domain/chat/tree.js';
import { spansOfConversation, turnHeader } from '../../../domain/chat/header.js';
import type { HeaderSpan } from '../../../domain/chat/span.js';

export const TRACE_SUMMARY_SQL = {
  lightSpans: `SELECT trace_id, span_id, parent_span_id, span_name, CAST(start_ns AS TEXT) AS start_ns, CAST(end_ns AS TEXT) AS end_ns,
    status_code, provider_name, agent_name, agent_version, conversation_id, svc_user_id, input_tokens, output_tokens,
    reasoning_tokens, cache_creation_input_tokens, cache_read_input_tokens, total_cost_usd
    FROM spans WHERE project_id = ? AND trace_id = ?`,
  upsertSummary: `INSERT OR REPLACE INTO trace_summaries (project_id, trace_id, root_span_id, root_span_name, agent_name,
    agent_version, provider_name, status_code, start_ns, end_ns, duration_ms, first_start_ns, last_end_ns, span_count,
    error_count, svc_user_id, conversation_ids, total_input_tokens, total_output_tokens, total_reasoning_tokens,
    total_cache_creation_input_tokens, total_cache_read_input_tokens, total_cost_usd)
    VALUES (${Array(23).fill('?').join(', ')})`,
  hasSummary: `SELECT 1 AS x FROM trace_summaries WHERE project_id = ? AND trace_id = ?`,
  needsBackfill: `SELECT EXISTS (SELECT 1 FROM spans) AND NOT EXISTS (SELECT 1 FROM trace_summaries) AS x`,
  allTraces: `SELECT DISTINCT project_id, trace_id FROM spans`,
  deleteTurns: `DELETE FROM conversation_turns WHERE project_id = ? AND trace_id = ?`,
  insertTurn: `INSERT INTO conversation_turns (project_id, conversation_id, trace_id, turn_start_ns, root_span_id,
    root_start_ns, root_end_ns, duration_ms, status_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
} as const;

type LightRow = Omit<HeaderSpan, 'start_ns' | 'end_ns'> & { start_ns: string | null; end_ns: string | null };

const minNs = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);
const maxNs = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a > b ? a : b);

export function createTraceSummaries(db: Db): SummaryMaintainer {
  const light = db.prepare<[string, string], LightRow>(TRACE_SUMMARY_SQL.lightSpans);
  const upsert = db.prepare(TRACE_SUMMARY_SQL.upsertSummary);
  const deleteTurns = db.prepare(TRACE_SUMMARY_SQL.deleteTurns);
  const insertTurn = db.prepare(TRACE_SUMMARY_SQL.insertTurn);
  const hasSummary = db.prepare<[string, string], { x: number }>(TRACE_SUMMARY_SQL.hasSummary);

  const stored = (projectId: string, traceId: string): HeaderSpan[] =>
    light.all(projectId, traceId).map((r) => ({
      ...r,
      status_code: r.status_code as StatusCode,
      start_ns: r.start_ns == null ? null : BigInt(r.start_ns),
      end_ns: r.end_ns == null ? null : BigInt(r.end_ns),
    }));

  /** `batch`: this trace's spans of the batch (last write of a span id wins, as in the upsert). */
  const refresh = (projectId: string, traceId: string, batch: Map<string, HeaderSpan> | null) => {
    const known = hasSummary.get(projectId, traceId) !== undefined;
    const spans = known || !batch ? stored(projectId, traceId) : [...batch.values()];
    if (known) deleteTurns.run(projectId, traceId);
    if (spans.length === 0) return;
    const h = turnHeader(spans, buildTree(spans));
    let first: bigint | null = null;
    let last: bigint | null = null;
    let errors = 0;
    const convStart = new Map<string, bigint | null>();
    for (const s of spans) {
      first = minNs(first, s.start_ns);
      last = maxNs(last, s.end_ns);
      if (s.status_code === 'ERROR') errors++;
      if (s.conversation_id != null) {
        const prev = convStart.has(s.conversation_id) ? convStart.get(s.conversation_id)! : undefined;
        convStart.set(s.conversation_id, prev === undefined ? s.start_ns : minNs(prev, s.start_ns));
      }
    }
    const convIds = [...convStart.keys()].sort();
    upsert.run(
      projectId, traceId, h.root_span_id, h.root_span_name, h.agent_name, h.agent_version, h.provider, h.status_code,
      h.start_ns, h.end_ns, h.total_duration_ms, first, last, spans.length, errors, h.svc_user_id, JSON.stringify(convIds),
      h.total_input_tokens, h.total_output_tokens, h.total_reasoning_tokens, h.total_cache_creation_input_tokens,
      h.total_cache_read_input_tokens, h.total_cost_usd,
    );
    for (const conv of convIds) {
      // With one conversation in the trace the turn is the whole trace; only mixed traces need a filtered header.
      const th = convIds.length === 1 ? h : turnHeader(spansOfConversation(spans, conv));
      insertTurn.run(projectId, conv, traceId, convStart.get(conv) ?? null, th.root_span_id, th.start_ns, th.end_ns, th.total_duration_ms, th.status_code);
    }
  };

  // A database whose spans predate migration 0002 gets its summaries once, at open.
  if (!db.readonly && db.prepare<[], { x: number }>(TRACE_SUMMARY_SQL.needsBackfill).get()?.x === 1) {
    const all = db.prepare<[], { project_id: string; trace_id: string }>(TRACE_SUMMARY_SQL.allTraces);
    db.transaction(() => {
      for (const t of all.all()) refresh(t.project_id, t.trace_id, null);
    })();
  }

  return {
    afterWrite(spans: SummarySpan[]) {
      const byTrace = new Map<string, { project_id: string; trace_id: string; spans: Map<string, HeaderSpan> }>();
      for (const s of spans) {
        const key = `${s.project_id}\u0000${s.trace_id}`;
        let t = byTrace.get(key);
        if (!t) byTrace.set(key, (t = { project_id: s.project_id, trace_id: s.trace_id, spans: new Map() }));
        t.spans.set(s.span_id, s);
      }
      for (const t of byTrace.values()) refresh(t.project_id, t.trace_id, t.spans);
    },
  };
}
