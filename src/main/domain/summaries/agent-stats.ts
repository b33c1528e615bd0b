/**
 * One trace's contribution to each agent (semantics §6 with the usage rule of §3). Pure function so
 * the rules are unit-testable without a database.
 *
 * Counts (span_count, invocation_count, error_count, duration, first/last seen) are over the spans
 * credited to the agent (the stored agent_name: the span's own, else its nearest agent ancestor's,
 * domain/accounting.ts), the same set `group_by agent_name` of the spans query and the Agents
 * click-through see.
 * Tokens and cost are summed over the spans the one counting rule marks (domain/chat/tree.ts
 * `countedSpans`, stored per span in `spans.counted` by the trace summaries before this runs), so an
 * invoke_agent span that repeats its children's tokens is not counted twice and every view shows the
 * same totals. A counted span is credited to its own agent_name, else to the nearest ancestor's (a
 * `chat` span under `invoke_agent X` without an agent attribute is X's spending).
 */
import { COUNTS_COST, COUNTS_USAGE } from '../chat/tree.js';

export interface TraceSpanRow {
  span_id: string;
  parent_span_id: string | null;
  agent_name: string | null;
  operation_name: string | null;
  status_code: string;
  start_ns: bigint | null;
  end_ns: bigint | null;
  /** A bigint as the store reads it with safe integers; a number from a batch (sqlite summaries/agents.ts). */
  input_tokens: bigint | number | null;
  output_tokens: bigint | number | null;
  total_cost_usd: number | null;
  /** COUNTS_USAGE | COUNTS_COST bits (spans.counted; a bigint as the store reads it with safe integers). */
  counted: number | bigint;
}

export interface AgentTraceStats {
  agent_name: string;
  span_count: number;
  invocation_count: number;
  error_count: number;
  duration_ns: bigint;
  input_tokens: number;
  output_tokens: number;
  /** Spans whose tokens counted (0: the agent's usage is unknown, not zero). */
  usage_spans: number;
  cost_usd: number | null;
  first_ns: bigint | null;
  last_ns: bigint | null;
}

export function traceAgentStats(rows: TraceSpanRow[]): AgentTraceStats[] {
  const byId = new Map(rows.map((r) => [r.span_id, r]));
  const label = (r: TraceSpanRow): string | null => {
    let cur: TraceSpanRow | undefined = r;
    for (let depth = 0; cur && depth < 1000; depth++) {
      if (cur.agent_name) return cur.agent_name;
      cur = cur.parent_span_id ? byId.get(cur.parent_span_id) : undefined;
    }
    return null;
  };

  const out = new Map<string, AgentTraceStats>();
  const get = (name: string) => {
    let s = out.get(name);
    if (!s) {
      s = { agent_name: name, span_count: 0, invocation_count: 0, error_count: 0, duration_ns: 0n, input_tokens: 0, output_tokens: 0, usage_spans: 0, cost_usd: null, first_ns: null, last_ns: null };
      out.set(name, s);
    }
    return s;
  };
  for (const r of rows) {
    if (r.agent_name) {
      const s = get(r.agent_name);
      s.span_count++;
      if (r.operation_name === 'invoke_agent') s.invocation_count++;
      if (r.status_code === 'ERROR') s.error_count++;
      if (r.start_ns != null && r.end_ns != null && r.end_ns > r.start_ns) s.duration_ns += r.end_ns - r.start_ns;
      if (r.start_ns != null) {
        if (s.first_ns == null || r.start_ns < s.first_ns) s.first_ns = r.start_ns;
        if (s.last_ns == null || r.start_ns > s.last_ns) s.last_ns = r.start_ns;
      }
    }
    const counted = Number(r.counted);
    if (counted) {
      const name = label(r);
      if (!name) continue;
      const s = get(name);
      if (counted & COUNTS_USAGE) {
        s.usage_spans++;
        s.input_tokens += Number(r.input_tokens ?? 0n);
        s.output_tokens += Number(r.output_tokens ?? 0n);
      }
      if (counted & COUNTS_COST) s.cost_usd = (s.cost_usd ?? 0) + r.total_cost_usd!;
    }
  }
  return [...out.values()];
}
