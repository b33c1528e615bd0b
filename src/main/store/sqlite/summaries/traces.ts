/**
 * Trace summaries (migration 0002), maintained at ingest inside the write transaction: for every
 * (project, trace) the batch touched, the summary row and conversation-turn rows are rewritten from
 * all of the trace's spans. A trace seen for the first time is summarized from the batch itself
 * (bulk imports write whole turns, so this skips a read per trace); a trace that already has a
 * summary is re-read through the unique key. The header rules are the chat view's own
 * (domain/chat/header.ts), so a summary and a freshly built turn never disagree.
 *
 * The same pass keeps the per-span counting bits (spans.counted, migration 0006) exact for traces
 * that grew or changed, stores each turn's contribution to its conversation and refreshes the
 * conversation summaries touched (conversations.ts).
 */
import type { Db } from '../open.js';
import type { FreshTraces, SummaryMaintainer, SummarySpan } from './types.js';
import { buildTree, countedSpans } from '../../../domain/chat/tree.js';
import { CREDIT_BITS, creditSpans, ownValues } from '../../../domain/accounting.js';
import { spansOfConversation, turnHeader } from '../../../domain/chat/header.js';
import { createConversationSummaries } from './conversations.js';
import { HAS_INPUT, HAS_OUTPUT, conversationStarts, turnContribution } from '../../../domain/summaries/turns.js';

/**
 * The conversations a trace has turns in, sorted (its trace row, migration 0017): read by the writer
 * before it rewrites a trace, the rollups and search.
 */
export const CONVERSATIONS_OF_TRACE_SQL = `SELECT j.value FROM trace_summaries ts, json_each(ts.conversation_ids) j
  WHERE ts.project_id = ? AND ts.trace_id = ? ORDER BY j.key`;

export const TRACE_SUMMARY_SQL = {
  lightSpans: `SELECT project_id, trace_id, span_id, parent_span_id, span_name, CAST(start_ns AS TEXT) AS start_ns, CAST(end_ns AS TEXT) AS end_ns,
    status_code, provider_name, agent_name, agent_version, operation_name, conversation_id, svc_user_id, input_tokens, output_tokens,
    reasoning_tokens, cache_creation_input_tokens, cache_read_input_tokens, total_cost_usd, request_model, conversation_name, counted
    FROM spans WHERE project_id = ? AND trace_id = ?`,
  // Retention's columns only (migration 0013): the chat builds a trace's header from its spans.
  upsertSummary: `INSERT OR REPLACE INTO trace_summaries (project_id, trace_id, first_start_ns, last_end_ns, span_count, conversation_ids)
    VALUES (?, ?, ?, ?, ?, ?)`,
  hasSummary: `SELECT 1 AS x FROM trace_summaries WHERE project_id = ? AND trace_id = ?`,
  deleteSummary: `DELETE FROM trace_summaries WHERE project_id = ? AND trace_id = ?`,
  oldConversations: CONVERSATIONS_OF_TRACE_SQL,
  deleteTurn: `DELETE FROM conversation_turns WHERE project_id = ? AND conversation_id = ? AND trace_id = ?`,
  insertTurn: `INSERT INTO conversation_turns (project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms,
    span_count, error_count, input_tokens, output_tokens, cost_usd, last_ns, conversation_name, agent_names, request_models,
    first_input_ns, first_span_id, last_output_ns, last_span_id, usage_spans)
    VALUES (${Array(20).fill('?').join(', ')})`,
  // The counting and inheritance bits and the credited agent / conversation (domain/accounting.ts) of a span whose credit moved.
  setCounted: `UPDATE spans SET counted = ?, agent_name = ?, conversation_id = ? WHERE project_id = ? AND trace_id = ? AND span_id = ?`,
  // Backfill (summaries/index.ts): the message bits of every stored span, before each trace is refreshed
  // (the inheritance bits stay: they say which stored agent / conversation values are the span's own).
  backfillMessageBits: `UPDATE spans SET counted = (counted & ${CREDIT_BITS}) | (SELECT (CASE WHEN d.input_messages <> '[]' THEN ${HAS_INPUT} ELSE 0 END)
    | (CASE WHEN d.output_messages <> '[]' THEN ${HAS_OUTPUT} ELSE 0 END) FROM span_details d WHERE d.span_rowid = spans.id)`,
} as const;

type Span = SummarySpan;
type LightRow = Omit<Span, 'start_ns' | 'end_ns'> & { start_ns: string | null; end_ns: string | null };

const minNs = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);
const maxNs = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a > b ? a : b);
const MESSAGE_BITS = HAS_INPUT | HAS_OUTPUT;

/**
 * The trace pass: its afterWrite says which traces it summarized from the batch alone, and puts in `before` the
 * conversations each other trace had before the batch (its trace row, read before the pass rewrites it: the
 * rollups' units before the batch).
 */
export type TraceSummaries = Omit<SummaryMaintainer, 'afterWrite'> & { afterWrite(spans: SummarySpan[], before?: Map<string, string[]>): FreshTraces };

export function createTraceSummaries(db: Db): TraceSummaries {
  const light = db.prepare<[string, string], LightRow>(TRACE_SUMMARY_SQL.lightSpans);
  const upsert = db.prepare(TRACE_SUMMARY_SQL.upsertSummary);
  const oldConversations = db.prepare<[string, string], string>(TRACE_SUMMARY_SQL.oldConversations).pluck();
  const deleteTurn = db.prepare(TRACE_SUMMARY_SQL.deleteTurn);
  const insertTurn = db.prepare(TRACE_SUMMARY_SQL.insertTurn);
  const hasSummary = db.prepare<[string, string], { x: number }>(TRACE_SUMMARY_SQL.hasSummary);
  const deleteSummary = db.prepare(TRACE_SUMMARY_SQL.deleteSummary);
  const setCounted = db.prepare(TRACE_SUMMARY_SQL.setCounted);
  const conversations = createConversationSummaries(db);

  const stored = (projectId: string, traceId: string): Span[] =>
    light.all(projectId, traceId).map((r) => ({
      ...r,
      status_code: r.status_code,
      start_ns: r.start_ns == null ? null : BigInt(r.start_ns),
      end_ns: r.end_ns == null ? null : BigInt(r.end_ns),
    }));

  /** Batch spans carry their preview texts; a stored span's are read only when it is a candidate. */
  const previewText = (s: Span, which: 'input' | 'output'): string | null => {
    const known = which === 'input' ? s.input_preview : s.output_preview;
    if (known !== undefined) return known;
    return conversations.storedPreview(s.project_id, s.trace_id, s.span_id, which);
  };

  /**
   * `batch`: this trace's spans of the batch (last write of a span id wins, as in the upsert).
   * Adds the conversations whose summaries must be re-aggregated to `touched`.
   */
  const refresh = (projectId: string, traceId: string, batch: Map<string, Span> | null, touched: Set<string>, fresh: Map<string, Span[]>, before?: Map<string, string[]>) => {
    const known = hasSummary.get(projectId, traceId) !== undefined;
    const spans = known || !batch ? stored(projectId, traceId) : [...batch.values()];
    if (!known && batch) fresh.set(`${projectId}\u0000${traceId}`, spans);
    if (known) {
      const old = oldConversations.all(projectId, traceId);
      before?.set(`${projectId}\u0000${traceId}`, old);
      for (const c of old) {
        touched.add(c);
        deleteTurn.run(projectId, c, traceId);
      }
    }
    if (spans.length === 0) {
      // Every span of the trace was deleted (retention): its summaries go with it.
      if (known) {
        deleteSummary.run(projectId, traceId);
        conversations.setTraceRow(projectId, traceId, null);
      }
      return;
    }
    const tree = buildTree(spans);
    if (known || !batch) {
      // The trace grew or changed: which of its spans count may have moved (a late child takes the
      // leaf role), and so may the agent and conversation a span inherits (its parent arrived).
      const counted = countedSpans(spans, tree);
      const credit = creditSpans(spans.map((s) => ({ ...s, ...ownValues(s) })));
      for (const s of spans) {
        const c = credit.get(s.span_id)!;
        const bits = (s.counted & MESSAGE_BITS) | (counted.get(s.span_id) ?? 0) | c.bits;
        if (bits !== s.counted || c.agent !== s.agent_name || c.conversation !== s.conversation_id) {
          setCounted.run(bits, c.agent, c.conversation, projectId, traceId, s.span_id);
          s.counted = bits;
          s.agent_name = c.agent;
          s.conversation_id = c.conversation;
        }
      }
    }
    const h = turnHeader(spans, tree);
    let first: bigint | null = null;
    let last: bigint | null = null;
    for (const s of spans) {
      first = minNs(first, s.start_ns);
      last = maxNs(last, s.end_ns);
    }
    const convStart = conversationStarts(spans);
    const convIds = [...convStart.keys()].sort();
    upsert.run(projectId, traceId, first, last, spans.length, JSON.stringify(convIds));
    for (const conv of convIds) {
      // With one conversation in the trace the turn is the whole trace; only mixed traces need a filtered header.
      const turnSpans = convIds.length === 1 ? spans : spansOfConversation(spans, conv);
      const th = convIds.length === 1 ? h : turnHeader(turnSpans);
      const c = turnContribution(turnSpans, th, previewText);
      // The turn row names its preview candidates; their texts, known here, save the re-aggregation a read.
      if (c.first_span_id != null) conversations.knownPreview(projectId, traceId, c.first_span_id, 'input', c.first_text);
      if (c.last_span_id != null) conversations.knownPreview(projectId, traceId, c.last_span_id, 'output', c.last_text);
      insertTurn.run(
        projectId, conv, traceId, convStart.get(conv) ?? null, th.end_ns, th.total_duration_ms,
        c.span_count, c.error_count, c.input_tokens, c.output_tokens, c.cost_usd, c.last_ns, c.conversation_name, c.agent_names,
        c.request_models, c.first_input_ns, c.first_span_id, c.last_output_ns, c.last_span_id, c.usage_spans,
      );
      touched.add(conv);
    }
    // A trace without any conversation id is listed as a one-turn conversation of its own.
    if (!convIds.length) conversations.setTraceRow(projectId, traceId, turnContribution(spans, h, previewText));
    else if (known || !batch) conversations.setTraceRow(projectId, traceId, null);
  };

  /** Returns the traces summarized from the batch alone (first seen in it). */
  const refreshAll = (traces: Iterable<{ project_id: string; trace_id: string; spans: Map<string, Span> | null }>, before?: Map<string, string[]>): FreshTraces => {
    const touched = new Map<string, Set<string>>();
    const fresh = new Map<string, Span[]>();
    for (const t of traces) {
      let set = touched.get(t.project_id);
      if (!set) touched.set(t.project_id, (set = new Set()));
      refresh(t.project_id, t.trace_id, t.spans, set, fresh, before);
    }
    try {
      for (const [projectId, ids] of touched) conversations.refreshConversations(projectId, ids);
    } finally {
      conversations.forgetPreviews();
    }
    return fresh;
  };

  return {
    afterWrite(spans: SummarySpan[], before?: Map<string, string[]>): FreshTraces {
      const byTrace = new Map<string, { project_id: string; trace_id: string; spans: Map<string, Span> }>();
      for (const s of spans) {
        const key = `${s.project_id}\u0000${s.trace_id}`;
        let t = byTrace.get(key);
        if (!t) byTrace.set(key, (t = { project_id: s.project_id, trace_id: s.trace_id, spans: new Map() }));
        t.spans.set(s.span_id, s);
      }
      return refreshAll(byTrace.values(), before);
    },
    refresh(traces) {
      void refreshAll(traces.map((t) => ({ ...t, spans: null })));
    },
    backfill(traces) {
      // Stores older than migration 0006 lack the message bits of spans.counted: set them first, for all.
      db.prepare(TRACE_SUMMARY_SQL.backfillMessageBits).run();
      void refreshAll(traces.map((t) => ({ ...t, spans: null })));
    },
  };
}
