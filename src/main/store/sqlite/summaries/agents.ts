import type { Db } from '../open.js';
import type { FreshTraces, SummaryMaintainer, SummarySpan } from './types.js';
import { compareUtf8 } from '../../../domain/utf8-order.js';
import { traceAgentStats, type AgentTraceStats, type TraceSpanRow } from '../../../domain/summaries/agent-stats.js';

export const AGENT_SUMMARY_SQL = {
  /**
   * An agent's row again from its per-trace rows (a trace that had a contribution changed, a delete). INDEXED BY:
   * left to itself the planner read the project's whole primary key (every trace of every agent) for each
   * agent — 20 ms of CPU per rebuild at 1M history spans, ~10× that at 10M, one or more per batch that continues a
   * trace (an import's batch boundary, a live trace's next request). The index holds the same rows in the same
   * order (trace id, the key's suffix), so every sum adds up in the same order to the same value.
   */
  rebuildSummary: `INSERT INTO agent_summaries (project_id, agent_name, span_count, invocation_count, error_count, duration_ns,
       input_tokens, output_tokens, cost_usd, first_ns, last_ns, usage_spans)
     SELECT project_id, agent_name, SUM(span_count), SUM(invocation_count), SUM(error_count), SUM(duration_ns),
            SUM(input_tokens), SUM(output_tokens), SUM(cost_usd), MIN(first_ns), MAX(last_ns), SUM(usage_spans)
       FROM agent_trace_stats INDEXED BY agent_trace_stats_agent WHERE project_id = ? AND agent_name = ?
      GROUP BY project_id, agent_name`,
} as const;

/**
 * Agent summaries (migration 0003), maintained inside the ingest write transaction.
 *
 * For every trace the batch touched, the trace's contribution per agent is recomputed from all its
 * spans (a trace is small; re-reading it is what makes re-imports exact: a span that moved to
 * another agent, or a late child that takes the usage-bearing-leaf role from its parent). A trace
 * seen for the first time is added to `agent_summaries` incrementally; when a trace had an earlier
 * contribution, the summaries of the agents involved are recomputed from `agent_trace_stats`
 * (indexed per agent), because min/max and nullable cost sums cannot be subtracted.
 *
 * A trace the trace pass summarized from the batch alone (first seen in it: `fresh`) is not read back:
 * its batch spans are all it has, with the counting bits and credited agents the writer stored
 * (sqlite/ingest.ts countBatch), taken in the order the read gives (spans_key: span id, in SQLite's
 * byte order) so that sums of costs add up in the same order to the same number.
 */
export function createAgentSummaries(db: Db): SummaryMaintainer {
  const readTrace = db
    .prepare(
      `SELECT span_id, parent_span_id, agent_name, operation_name, status_code, start_ns, end_ns,
              input_tokens, output_tokens, total_cost_usd, counted
         FROM spans WHERE project_id = ? AND trace_id = ?`,
    )
    .safeIntegers(true);
  const oldAgents = db.prepare('SELECT agent_name FROM agent_trace_stats WHERE project_id = ? AND trace_id = ?').pluck();
  const deleteTrace = db.prepare('DELETE FROM agent_trace_stats WHERE project_id = ? AND trace_id = ?');
  const insertStats = db.prepare(
    `INSERT INTO agent_trace_stats (project_id, trace_id, agent_name, span_count, invocation_count, error_count,
       duration_ns, input_tokens, output_tokens, cost_usd, first_ns, last_ns, usage_spans)
     VALUES (@project_id, @trace_id, @agent_name, @span_count, @invocation_count, @error_count,
       @duration_ns, @input_tokens, @output_tokens, @cost_usd, @first_ns, @last_ns, @usage_spans)`,
  );
  const addToSummary = db.prepare(
    `INSERT INTO agent_summaries (project_id, agent_name, span_count, invocation_count, error_count, duration_ns,
       input_tokens, output_tokens, cost_usd, first_ns, last_ns, usage_spans)
     VALUES (@project_id, @agent_name, @span_count, @invocation_count, @error_count, @duration_ns,
       @input_tokens, @output_tokens, @cost_usd, @first_ns, @last_ns, @usage_spans)
     ON CONFLICT (project_id, agent_name) DO UPDATE SET
       span_count = span_count + excluded.span_count,
       invocation_count = invocation_count + excluded.invocation_count,
       error_count = error_count + excluded.error_count,
       duration_ns = duration_ns + excluded.duration_ns,
       input_tokens = input_tokens + excluded.input_tokens,
       output_tokens = output_tokens + excluded.output_tokens,
       usage_spans = usage_spans + excluded.usage_spans,
       cost_usd = CASE WHEN cost_usd IS NULL AND excluded.cost_usd IS NULL THEN NULL
                       ELSE IFNULL(cost_usd, 0) + IFNULL(excluded.cost_usd, 0) END,
       first_ns = MIN(IFNULL(first_ns, excluded.first_ns), IFNULL(excluded.first_ns, first_ns)),
       last_ns = MAX(IFNULL(last_ns, excluded.last_ns), IFNULL(excluded.last_ns, last_ns))`,
  );
  const deleteSummary = db.prepare('DELETE FROM agent_summaries WHERE project_id = ? AND agent_name = ?');
  const rebuildSummary = db.prepare(AGENT_SUMMARY_SQL.rebuildSummary);

  const refresh = (traces: Iterable<{ project_id: string; trace_id: string }>, fresh?: FreshTraces) => {
    const rebuild = new Map<string, { project_id: string; agent_name: string }>();
    // New traces' contributions, summed per agent in memory: one summary upsert per agent per batch
    // instead of one per (trace, agent).
    const added = new Map<string, AgentTraceStats & { project_id: string }>();
    for (const { project_id, trace_id } of traces) {
      // A trace first seen in the batch (no trace row before it) had no per-agent rows either: both are written
      // together, and deleted together (retention), so its earlier agents are not read.
      const batch = fresh?.get(`${project_id}\u0000${trace_id}`);
      const before = batch ? [] : (oldAgents.all(project_id, trace_id) as string[]);
      const stats = traceAgentStats(batch ? inReadOrder(batch) : (readTrace.all(project_id, trace_id) as TraceSpanRow[]));
      if (before.length) {
        deleteTrace.run(project_id, trace_id);
        for (const a of [...before, ...stats.map((s) => s.agent_name)]) rebuild.set(`${project_id}\u0000${a}`, { project_id, agent_name: a });
      }
      for (const s of stats) {
        insertStats.run(toParams(project_id, trace_id, s));
        if (before.length) continue;
        const key = `${project_id}\u0000${s.agent_name}`;
        const sum = added.get(key);
        if (sum) addStats(sum, s);
        else added.set(key, { project_id, ...s });
      }
    }
    for (const [key, sum] of added) if (!rebuild.has(key)) addToSummary.run(sum);
    for (const { project_id, agent_name } of rebuild.values()) {
      deleteSummary.run(project_id, agent_name);
      rebuildSummary.run(project_id, agent_name);
    }
  };
  return {
    afterWrite(spans: SummarySpan[], fresh?: FreshTraces) {
      const traces = new Map<string, { project_id: string; trace_id: string }>();
      for (const s of spans) traces.set(`${s.project_id}\u0000${s.trace_id}`, { project_id: s.project_id, trace_id: s.trace_id });
      refresh(traces.values(), fresh);
    },
    refresh: (traces) => refresh(traces),
    backfill: (traces) => refresh(traces),
  };
}

/** A trace's batch spans as readTrace returns its stored rows: by span id in SQLite's (UTF-8 byte) order. */
function inReadOrder(spans: readonly SummarySpan[]): TraceSpanRow[] {
  return [...spans].sort((a, b) => compareUtf8(a.span_id, b.span_id));
}

/** Adds `b` to `a` as the summary upsert would (nullable cost, earliest first, latest last). */
function addStats(a: AgentTraceStats, b: AgentTraceStats): void {
  a.span_count += b.span_count;
  a.invocation_count += b.invocation_count;
  a.error_count += b.error_count;
  a.duration_ns += b.duration_ns;
  a.input_tokens += b.input_tokens;
  a.output_tokens += b.output_tokens;
  a.usage_spans += b.usage_spans;
  if (b.cost_usd != null) a.cost_usd = (a.cost_usd ?? 0) + b.cost_usd;
  if (b.first_ns != null && (a.first_ns == null || b.first_ns < a.first_ns)) a.first_ns = b.first_ns;
  if (b.last_ns != null && (a.last_ns == null || b.last_ns > a.last_ns)) a.last_ns = b.last_ns;
}

function toParams(project_id: string, trace_id: string, s: AgentTraceStats) {
  return { project_id, trace_id, ...s };
}
