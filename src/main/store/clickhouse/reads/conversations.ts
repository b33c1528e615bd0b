/**
 * The conversations list (conversations.list, issue 8 item 3), read from conversation_summaries only:
 * the same rows, filters, search and order as the SQLite adapter (store/sqlite/conversations.ts).
 */
import type { ConversationRow, ConversationSortField, ConversationsPlan } from '../../../domain/plans.js';
import type { ReadOptions } from '../../ports.js';
import { conversationRow, summarySnippet } from '../../../domain/conversation-row.js';
import type { ClickHouse } from '../connection.js';
import { i64, ident, join, limit, raw, sql, str, strs, type Sql } from '../sql.js';
import { FINAL_SETTINGS } from './scope.js';
import { dir } from './spans-list.js';

const SORT: Record<ConversationSortField, string> = {
  conversation_id: 'conversation_id', conversation_name: 'conversation_name', turn_count: 'turn_count', span_count: 'span_count',
  error_count: 'error_count', total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', total_cost_usd: 'cost_usd',
  first_activity: 'first_ns', last_activity: 'last_ns',
};

type Row = {
  kind: 'conversation' | 'trace'; conversation_id: string; conversation_name: string | null; turn_count: number; span_count: string;
  error_count: string; input_tokens: string; output_tokens: string; usage_spans: string | number; cost_usd: number | null; first_ns: string | null; last_ns: string | null;
  agent_names: string[]; request_models: string[]; first_text: string | null; last_text: string | null;
};

/** Until full-text search: a case-insensitive substring of the row's texts (ASCII case folding, as SQLite's LIKE). */
function searchOf(text: string): Sql {
  const n = str(text);
  const hit = (c: string) => sql`positionCaseInsensitive(ifNull(${ident(c)}, ''), ${n}) > 0`;
  return sql`(${join(['conversation_id', 'conversation_name', 'first_text', 'last_text'].map(hit), ' OR ')}
    OR arrayExists(x -> positionCaseInsensitive(x, ${n}) > 0, agent_names) OR arrayExists(x -> positionCaseInsensitive(x, ${n}) > 0, request_models))`;
}

export async function conversations(ch: ClickHouse, plan: ConversationsPlan, opts: ReadOptions): Promise<{ conversations: ConversationRow[]; total_count: number }> {
  const where: Sql[] = [sql`project_id = ${str(plan.project_id)}`, raw('deleted = 0')];
  if (plan.active_after_ns !== null) where.push(sql`last_ns >= ${i64(plan.active_after_ns)}`);
  if (plan.active_before_ns !== null) where.push(sql`last_ns < ${i64(plan.active_before_ns)}`);
  if (plan.agent_names) where.push(sql`hasAny(agent_names, ${strs(plan.agent_names)})`);
  if (plan.models) where.push(sql`hasAny(request_models, ${strs(plan.models)})`);
  if (plan.status === 'error') where.push(raw('error_count > 0'));
  if (plan.status === 'ok') where.push(raw('error_count = 0'));
  if (plan.search) where.push(searchOf(plan.search));
  const order = plan.sort.map((s) => sql`${ident(SORT[s.field])}${dir(s.direction)}`);
  if (!plan.sort.some((s) => s.field === 'conversation_id')) order.push(raw('conversation_id ASC'));
  order.push(raw('kind ASC'));
  // Two steps: the page's keys first, sorting only the columns the order and filters name (18.16 reads
  // every selected column of every row before it sorts: the previews would be read for the whole
  // project), then the page's rows by key, a seek of the table's sorting key.
  const { rows: keys, total } = await ch.page<{ kind: string; conversation_id: string }>(
    sql`SELECT kind, conversation_id FROM conversation_summaries FINAL WHERE ${join(where, ' AND ')}
        ORDER BY ${join(order, ', ')}${limit(plan.offset, plan.limit)}${FINAL_SETTINGS}`,
    opts,
  );
  if (!keys.length) return { conversations: [], total_count: total };
  const rows = await ch.rows<Row>(
    sql`SELECT kind, conversation_id, conversation_name, turn_count, span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd,
          first_ns, last_ns, agent_names, request_models, first_text, last_text
        FROM conversation_summaries FINAL WHERE project_id = ${str(plan.project_id)} AND deleted = 0
          AND conversation_id IN (${join(keys.map((k) => sql`${str(k.conversation_id)}`), ', ')})${FINAL_SETTINGS}`,
    opts,
  );
  const byKey = new Map(rows.map((r) => [`${r.kind}\u0000${r.conversation_id}`, r]));
  // A row deleted between the two steps is left out (as if the page had been read a moment later).
  const page = keys.map((k) => byKey.get(`${k.kind}\u0000${k.conversation_id}`)).filter((r): r is Row => r !== undefined);
  return { conversations: page.map((r) => toRow(r, plan.search)), total_count: total };
}

function toRow(r: Row, search: string | null): ConversationRow {
  const summary = {
    ...r, turn_count: Number(r.turn_count), span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans), first_ns: r.first_ns == null ? null : BigInt(r.first_ns), last_ns: r.last_ns == null ? null : BigInt(r.last_ns),
  };
  return conversationRow(summary, search ? summarySnippet(summary, search) : null);
}

/** Every agent and request model of a project (the list's filter choices), sorted. */
export async function facets(ch: ClickHouse, projectId: string, opts: ReadOptions): Promise<{ agent_names: string[]; request_models: string[] }> {
  const p = str(projectId);
  const [agents, models] = await Promise.all([
    ch.rows<{ v: string }>(sql`SELECT DISTINCT agent_name AS v FROM agent_trace_stats FINAL WHERE project_id = ${p} AND deleted = 0 ORDER BY v${FINAL_SETTINGS}`, opts),
    ch.rows<{ v: string }>(sql`SELECT DISTINCT arrayJoin(request_models) AS v FROM conversation_summaries FINAL WHERE project_id = ${p} AND deleted = 0 ORDER BY v${FINAL_SETTINGS}`, opts),
  ]);
  return { agent_names: agents.map((r) => r.v), request_models: models.map((r) => r.v) };
}
