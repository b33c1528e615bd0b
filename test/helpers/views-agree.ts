/**
 * Issue 18's "every view agrees": for every conversation and every agent of a project, the totals
 * each view shows, read through the real operations (the same requests the UI sends):
 * - a conversation: its conversations-list row, the chat header (chat.conversation `totals`), the
 *   sum of its turn headers, and group-by conversation_id filtered to it;
 * - a turn: its header, and group-by conversation_id + trace_id filtered to it (wall time);
 * - an agent: its Agents row, its click-through (the Spans list filtered to it: the span count, and the
 *   totals strip, a group-by agent_name with the same filter), and group-by agent_name.
 * Returns the list of disagreements (empty when every view agrees) and what was compared.
 */
import type { ServiceContext } from '../../src/main/service/context.js';
import { dispatch } from '../../src/main/transport/dispatch.js';

type Any = any;  
const call = async (ctx: ServiceContext, name: string, body: unknown): Promise<Any> => {
  const out = await dispatch(name, body, ctx);
  if (out && typeof out === 'object' && Symbol.asyncIterator in out) {
    const rows: unknown[] = [];
    for await (const r of out as AsyncIterable<unknown>) rows.push(r);
    return rows;
  }
  return out;
};
const eq = (field: string, value: string) => ({ $eq: [{ $getField: field }, { $literal: value }] });
const and = (...xs: unknown[]) => ({ $expr: xs.length === 1 ? xs[0] : { $and: xs } });
const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)));

export interface Compared {
  conversations: number;
  turns: number;
  agents: number;
  /** Conversations in which some span does not carry the conversation id itself. */
  partlyTagged: string[];
  problems: string[];
}

export async function viewsAgree(ctx: ServiceContext, project: string): Promise<Compared> {
  const problems: string[] = [];
  const check = (what: string, a: unknown, b: unknown, cmp: (x: Any, y: Any) => boolean = (x, y) => x === y) => {
    if (!cmp(a, b)) problems.push(`${project} ${what}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
  };
  const group = async (key: string, ...conds: unknown[]) =>
    (await call(ctx, 'spans.query', { project_id: project, group_by: [{ key, source: 'field' }], query: and(...conds), include_costs: true, limit: 10 })).groups as Any[];
  const list = (await call(ctx, 'conversations.list', { project_id: project, limit: 1000 })).conversations as Any[];
  const out: Compared = { conversations: 0, turns: 0, agents: 0, partlyTagged: [], problems };
  for (const row of list.filter((r) => r.kind === 'conversation')) {
    const id = row.conversation_id as string;
    const chat = await call(ctx, 'chat.conversation', { project_id: project, conversation_id: id, limit: 50 });
    const h = chat.totals;
    out.conversations++;
    check(`${id} header tokens`, [h.total_input_tokens, h.total_output_tokens, h.usage_known], [row.total_input_tokens, row.total_output_tokens, row.usage_known], (a, b) => JSON.stringify(a) === JSON.stringify(b));
    check(`${id} header cost`, h.total_cost_usd, row.total_cost_usd, close);
    check(`${id} header spans`, [h.span_count, h.error_count], [row.span_count, row.error_count], (a, b) => JSON.stringify(a) === JSON.stringify(b));
    check(`${id} header duration set`, h.duration_ms !== null && h.duration_ms !== undefined, true);
    let inTok = 0;
    let outTok = 0;
    let cost: number | null = null;
    for (const t of chat.turns as Any[]) {
      out.turns++;
      inTok += t.total_input_tokens;
      outTok += t.total_output_tokens;
      if (t.total_cost_usd !== null) cost = (cost ?? 0) + t.total_cost_usd;
      const [g] = await group('trace_id', eq('conversation_id', id), eq('trace_id', t.trace_id));
      check(`${id} turn ${t.trace_id} tokens`, [t.total_input_tokens, t.total_output_tokens, t.usage_known], [g?.total_input_tokens, g?.total_output_tokens, g?.usage_known], (a, b) => JSON.stringify(a) === JSON.stringify(b));
      check(`${id} turn ${t.trace_id} cost`, t.total_cost_usd, g?.total_cost_usd ?? null, close);
      check(`${id} turn ${t.trace_id} duration`, t.total_duration_ms, g?.wall_duration_ms ?? null);
    }
    if (chat.turns.length === row.turn_count) {
      check(`${id} Σ turn tokens`, [inTok, outTok], [row.total_input_tokens, row.total_output_tokens], (a, b) => JSON.stringify(a) === JSON.stringify(b));
      check(`${id} Σ turn cost`, cost, row.total_cost_usd, close);
    }
    const [g] = await group('conversation_id', eq('conversation_id', id));
    check(`${id} group-by tokens`, [g?.total_input_tokens, g?.total_output_tokens, g?.usage_known, g?.span_count, g?.error_count], [row.total_input_tokens, row.total_output_tokens, row.usage_known, row.span_count, row.error_count], (a, b) => JSON.stringify(a) === JSON.stringify(b));
    check(`${id} group-by cost`, g?.total_cost_usd ?? null, row.total_cost_usd, close);
    check(`${id} group-by duration`, g?.wall_duration_ms ?? null, h.duration_ms);
    // Spans that carry the id themselves, against all the conversation's spans.
    const own = (await call(ctx, 'spans.query', { project_id: project, query: and(eq('conversation_id', id)), limit: 1000 })).spans as Any[];
    if (own.length !== row.span_count) problems.push(`${project} ${id}: the Spans list filtered to it has ${own.length} spans, the list row ${row.span_count}`);
    const tagged = await ownlyTagged(ctx, project, id);
    if (tagged < row.span_count) out.partlyTagged.push(id);
  }
  const agents = (await call(ctx, 'agents.query', { project_id: project, include_costs: true, limit: 1000 })).agents as Any[];
  for (const a of agents) {
    out.agents++;
    const name = a.agent_name as string;
    const [g] = await group('agent_name', eq('agent_name', name));
    const fields = (x: Any) => [x?.span_count, x?.invocation_count, x?.error_count, x?.total_input_tokens, x?.total_output_tokens, x?.usage_known, x?.total_duration_ms];
    check(`agent ${name} group-by`, fields(g), fields(a), (x, y) => JSON.stringify(x) === JSON.stringify(y));
    check(`agent ${name} group-by cost`, g?.total_cost_usd ?? null, a.total_cost_usd, close);
    // The click-through: the Spans list filtered to the agent (its count), and its totals strip.
    const click = await call(ctx, 'spans.query', { project_id: project, query: and(eq('agent_name', name)), limit: 1 });
    check(`agent ${name} click-through spans`, click.total_count, a.span_count);
    const all = (await group('agent_name')).find((x) => x.group_keys.agent_name === name);
    check(`agent ${name} unfiltered group-by`, fields(all), fields(a), (x, y) => JSON.stringify(x) === JSON.stringify(y));
  }
  return out;
}

/** How many of a conversation's spans carry its id themselves (the rest inherit it). */
async function ownlyTagged(ctx: ServiceContext, project: string, id: string): Promise<number> {
  const rows = (await call(ctx, 'spans.query', { project_id: project, query: and(eq('conversation_id', id)), include_details: true, limit: 1000 })).spans as Any[];
  let n = 0;
  for (const r of rows) {
    const raw = JSON.parse(r.raw_span_dump ?? '{}') as { attributes?: { key: string; value: Record<string, unknown> }[] };
    const text = JSON.stringify(raw.attributes ?? []);
    if (text.includes(JSON.stringify(id))) n++;
  }
  return n;
}
