/**
 * Kept per-(project, day) rows (migration 0011, issue 19): what the projects list, the Agents page, the
 * filter choices and the Spans list's count read instead of a row per trace or per span. One row per
 * project and partition day of `spans` (the UTC day of a span's start, day 0 for the others), computed
 * by the server from that day's current spans with the SQL below: the day's span count and latest
 * start, per credited agent_name (parallel arrays: a newer version of the day replaces all its agents
 * at once, an agent that left the day needs no tombstone) the agents list's sums — spans, invocations,
 * errors, duration, counted tokens and cost by the counting rule, spans whose usage counted, first and
 * last start (domain/summaries/agent-stats.ts over the stored credit and counting bits, which is what
 * agent_trace_stats held per trace) — and the day's distinct request models.
 *
 * Kept by the writer at the end of every summary round (and after deletes). Since migration 0014 a round
 * updates a day row from its traces' contributions (trace_days: the same SQL over one trace's spans of the
 * day; `contributions`, `replaceable` and `replaced` below, writer.ts keepDays), reading a row per day and per
 * re-summarized trace. Otherwise (a change arithmetic cannot undo, another writer's overlapping window, a delete
 * or a repair) each day the round's traces have spans in (the batch's days and the days they had before) is
 * recomputed as the sum of its current contributions (before 0014: from its current spans), with a version stamped after the round's inserts (spans, recounts) and before the read, and
 * an empty row at an earlier stamp so a day left without spans reads empty. The same argument as the
 * summaries': every insert into a day is followed by its writer's recompute of that day, stamped after
 * the insert, so the newest row of a day was read after every insert into it whose recompute is done.
 * What a recompute reads is one project's rows of a few day partitions: a day's spans, whatever the
 * store holds. A list reads one row per (project, day).
 *
 * The per-(day, agent) aggregates are collected with groupArrayIf(tuple(…)): groupArray skips NULLs of a
 * Nullable argument (a NULL cost or first start) and would misalign the arrays; a tuple is never NULL.
 */

/**
 * `INSERT … SELECT project_id, day, ` + version + DAYS_MID + spans source + DAYS_TAIL (the source names its own WHERE): the
 * day rows' definition from the spans (migration 0011's fill; the tests' reference). Since 0014 the writer keeps them from
 * the traces' contributions (trace_days: the same rules per trace, `contributions` below), and recomputes a day as the sum
 * of its contributions: its spans would also count batches stored and not yet summarized, which their rounds add later.
 */
export const DAYS_HEAD = `INSERT INTO project_days (project_id, day, version, span_count, last_start_ns, agent_name, agent_spans,
agent_invocations, agent_errors, agent_dur_ns, agent_in_tok, agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns,
agent_last_ns, request_models) SELECT project_id, day, `;

export const DAYS_MID = `, n, last, arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g),
arrayMap(t -> tupleElement(t, 3), g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g),
arrayMap(t -> tupleElement(t, 6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8), g),
arrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g), arrayMap(t -> tupleElement(t, 11), g), models
FROM (SELECT project_id, day, sum(a_spans) AS n, max(a_last) AS last, groupArrayIf(tuple(assumeNotNull(a_agent), a_spans, a_inv,
a_err, a_dur, a_in, a_out, a_usage, a_cost, a_first, a_last), isNotNull(a_agent)) AS g, groupUniqArrayArray(a_models) AS models
FROM (SELECT project_id, day, agent_name AS a_agent, count() AS a_spans, countIf(ifNull(operation_name = 'invoke_agent', 0)) AS a_inv,
countIf(status_code = 'ERROR') AS a_err, ifNull(sum(if(ifNull(end_ns > start_ns, 0), end_ns - start_ns, 0)), 0) AS a_dur,
ifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(input_tokens, 0), 0)), 0) AS a_in,
ifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(output_tokens, 0), 0)), 0) AS a_out, countIf(bitAnd(counted, 1) != 0) AS a_usage,
sum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS a_cost, min(start_ns) AS a_first, max(start_ns) AS a_last,
groupUniqArray(request_model) AS a_models FROM `;

export const DAYS_TAIL = ` GROUP BY project_id, day, agent_name) GROUP BY project_id, day) SETTINGS optimize_move_to_prewhere = 0`;

/**
 * One agent's sums in a day row (or in one trace's contribution to it, trace_days: migration 0014). Token and span counts
 * fit a double exactly; durations are nanoseconds (bigint).
 */
export interface AgentDay {
  spans: number;
  invocations: number;
  errors: number;
  dur: bigint;
  inTok: number;
  outTok: number;
  usage: number;
  cost: number | null;
  first: bigint | null;
  last: bigint | null;
}

/** A project_days row, or a trace_days row (one trace's spans of the day): what the SQL above computes. */
export interface DayRow {
  spanCount: number;
  lastStart: bigint | null;
  agents: Map<string, AgentDay>;
  models: Set<string>;
}

/** The span columns a contribution reads (a LightSpan after its recount: stored credit and counting bits). */
export interface DaySpan {
  day: string;
  start_ns: bigint | null;
  end_ns: bigint | null;
  status_code: string;
  agent_name: string | null;
  operation_name: string | null;
  request_model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  total_cost_usd: number | null;
  counted: number;
}

const minN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);
const maxN = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a > b ? a : b);
const big = (v: string | number | null | undefined) => (v == null ? null : BigInt(v));

/** An agent's sums before any span. */
const emptyAgent = (): AgentDay => ({ spans: 0, invocations: 0, errors: 0, dur: 0n, inTok: 0, outTok: 0, usage: 0, cost: null, first: null, last: null });

export const emptyDay = (): DayRow => ({ spanCount: 0, lastStart: null, agents: new Map(), models: new Set() });

/**
 * One trace's contribution to each day it has spans in: the day row's SQL (DAYS_MID) over those spans alone.
 * The same rules, in the same order of operations where it matters (NULLs skipped by sums, min and max; a cost
 * sum is NULL when no span's cost is counted).
 */
export function contributions(spans: Iterable<DaySpan>): Map<string, DayRow> {
  const out = new Map<string, DayRow>();
  for (const s of spans) {
    let row = out.get(s.day);
    if (!row) out.set(s.day, (row = emptyDay()));
    row.spanCount++;
    row.lastStart = maxN(row.lastStart, s.start_ns);
    if (s.request_model != null) row.models.add(s.request_model);
    if (s.agent_name == null) continue;
    let a = row.agents.get(s.agent_name);
    if (!a) row.agents.set(s.agent_name, (a = emptyAgent()));
    a.spans++;
    if (s.operation_name === 'invoke_agent') a.invocations++;
    if (s.status_code === 'ERROR') a.errors++;
    if (s.start_ns != null && s.end_ns != null && s.end_ns > s.start_ns) a.dur += s.end_ns - s.start_ns;
    if ((s.counted & 1) !== 0) {
      a.inTok += s.input_tokens ?? 0;
      a.outTok += s.output_tokens ?? 0;
      a.usage++;
    }
    if ((s.counted & 2) !== 0 && s.total_cost_usd != null) a.cost = (a.cost ?? 0) + s.total_cost_usd;
    a.first = minN(a.first, s.start_ns);
    a.last = maxN(a.last, s.start_ns);
  }
  return out;
}

/**
 * Whether replacing `old` by `now` in a sum can be done by arithmetic: counts and sums subtract exactly, but a
 * maximum, a minimum, a set of models or a cost's being NULL cannot be taken back. So `now` must keep whatever of
 * `old` those depend on: the latest start no earlier, every model, every agent with a first start no later, a last
 * start no earlier and a cost wherever it had one. A trace that grows (more spans, a recount that moves tokens)
 * passes; one that loses spans, an agent or a model does not (the day is then recomputed from its spans).
 */
export function replaceable(old: DayRow, now: DayRow | undefined): boolean {
  if (old.spanCount === 0) return true;
  if (!now) return false;
  if (old.lastStart != null && (now.lastStart == null || now.lastStart < old.lastStart)) return false;
  for (const m of old.models) if (!now.models.has(m)) return false;
  for (const [name, a] of old.agents) {
    const b = now.agents.get(name);
    if (!b) return false;
    if (a.first != null && (b.first == null || b.first > a.first)) return false;
    if (a.last != null && (b.last == null || b.last < a.last)) return false;
    if (a.cost != null && b.cost == null) return false;
  }
  return true;
}

/**
 * A day row with some traces' contributions replaced: `base` − each old + each new (pairs `replaceable` accepted).
 * Null when the result is impossible (a count below zero: the base did not hold the old contribution), which the
 * caller answers by recomputing the day.
 */
export function replaced(base: DayRow, changes: { old: DayRow | undefined; now: DayRow | undefined }[]): DayRow | null {
  const out: DayRow = {
    spanCount: base.spanCount,
    lastStart: base.lastStart,
    agents: new Map([...base.agents].map(([k, a]) => [k, { ...a }])),
    models: new Set(base.models),
  };
  /** Cost magnitudes summed per agent, to tell a cancellation's rounding residue from a real amount. */
  const scale = new Map<string, number>();
  const add = (row: DayRow, sign: 1 | -1) => {
    out.spanCount += sign * row.spanCount;
    for (const [name, a] of row.agents) {
      let o = out.agents.get(name);
      if (!o) {
        if (sign < 0) return false;
        out.agents.set(name, (o = emptyAgent()));
      }
      o.spans += sign * a.spans;
      o.invocations += sign * a.invocations;
      o.errors += sign * a.errors;
      o.dur += BigInt(sign) * a.dur;
      o.inTok += sign * a.inTok;
      o.outTok += sign * a.outTok;
      o.usage += sign * a.usage;
      if (a.cost != null) {
        if (sign < 0 && o.cost == null) return false;
        scale.set(name, (scale.get(name) ?? Math.abs(o.cost ?? 0)) + Math.abs(a.cost));
        o.cost = (o.cost ?? 0) + sign * a.cost;
      }
      if (sign > 0) {
        o.first = minN(o.first, a.first);
        o.last = maxN(o.last, a.last);
      }
    }
    if (sign > 0) {
      out.lastStart = maxN(out.lastStart, row.lastStart);
      for (const m of row.models) out.models.add(m);
    }
    return true;
  };
  for (const c of changes) {
    if (c.old && !add(c.old, -1)) return null;
    if (c.now && !add(c.now, 1)) return null;
  }
  if (out.spanCount < 0) return null;
  for (const [name, a] of [...out.agents]) {
    if (a.spans < 0 || a.invocations < 0 || a.errors < 0 || a.usage < 0 || a.dur < 0n) return null;
    if (a.spans === 0) out.agents.delete(name);
    else if (a.cost != null && Math.abs(a.cost) <= (scale.get(name) ?? 0) * 1e-12) a.cost = 0;
  }
  return out;
}

/** A project_days / trace_days row as the server returns it (JSONEachRow: 64-bit integers as quoted digits). */
export interface DayRowJson {
  day: string;
  trace_id?: string;
  span_count: string;
  last_start_ns: string | null;
  agent_name: string[];
  agent_spans: string[];
  agent_invocations: string[];
  agent_errors: string[];
  agent_dur_ns: string[];
  agent_in_tok: string[];
  agent_out_tok: string[];
  agent_usage_spans: string[];
  agent_cost: (number | null)[];
  agent_first_ns: (string | null)[];
  agent_last_ns: (string | null)[];
  request_models: string[];
}

export const DAY_ROW_COLUMNS = `day, span_count, last_start_ns, agent_name, agent_spans, agent_invocations, agent_errors, agent_dur_ns, agent_in_tok,
agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns, agent_last_ns, request_models`;

export function dayRowOf(r: DayRowJson): DayRow {
  const agents = new Map<string, AgentDay>();
  r.agent_name.forEach((name, i) =>
    agents.set(name, {
      spans: Number(r.agent_spans[i]),
      invocations: Number(r.agent_invocations[i]),
      errors: Number(r.agent_errors[i]),
      dur: BigInt(r.agent_dur_ns[i]!),
      inTok: Number(r.agent_in_tok[i]),
      outTok: Number(r.agent_out_tok[i]),
      usage: Number(r.agent_usage_spans[i]),
      cost: r.agent_cost[i] ?? null,
      first: big(r.agent_first_ns[i]),
      last: big(r.agent_last_ns[i]),
    }),
  );
  return { spanCount: Number(r.span_count), lastStart: big(r.last_start_ns), agents, models: new Set(r.request_models) };
}

/** The JSONEachRow line of a day row (trace_days when `traceId` is given). */
export function dayRowJson(projectId: string, day: string, version: number, row: DayRow, traceId?: string): string {
  const agents = [...row.agents];
  const s = (v: bigint | null) => (v == null ? null : v.toString());
  return JSON.stringify({
    project_id: projectId,
    day,
    ...(traceId === undefined ? {} : { trace_id: traceId }),
    version,
    span_count: row.spanCount,
    last_start_ns: s(row.lastStart),
    agent_name: agents.map(([n]) => n),
    agent_spans: agents.map(([, a]) => a.spans),
    agent_invocations: agents.map(([, a]) => a.invocations),
    agent_errors: agents.map(([, a]) => a.errors),
    agent_dur_ns: agents.map(([, a]) => a.dur.toString()),
    agent_in_tok: agents.map(([, a]) => a.inTok),
    agent_out_tok: agents.map(([, a]) => a.outTok),
    agent_usage_spans: agents.map(([, a]) => a.usage),
    agent_cost: agents.map(([, a]) => a.cost),
    agent_first_ns: agents.map(([, a]) => s(a.first)),
    agent_last_ns: agents.map(([, a]) => s(a.last)),
    request_models: [...row.models],
  });
}
