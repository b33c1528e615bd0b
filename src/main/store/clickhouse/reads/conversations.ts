/** The conversations list (issue 8 item 3), read from conversation_summaries only. */
import type { ConversationRow, ConversationSortField, ConversationsPlan } from '../../../domain/plans.js';
import { isoFromNs } from '../../../domain/time.js';
import type { ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { searchSql, withProject } from '../expr.js';
import { i64, join, limit, raw, sql, str, strs, type Sql } from '../sql.js';
import { FINAL_SETTINGS } from './scope.js';
import { dir } from './spans-list.js';
import { withSnippets } from './search.js';

const SORT: Record<ConversationSortField, string> = {
  conversation_id: 'conversation_id', conversation_name: 'conversation_name', turn_count: 'turn_count', span_count: 'span_count',
  error_count: 'error_count', total_input_tokens: 'total_input_tokens', total_output_tokens: 'total_output_tokens',
  total_cost_usd: 'total_cost_usd', first_activity: 'first_activity_ns', last_activity: 'last_activity_ns',
};

type Row = Omit<ConversationRow, 'first_message' | 'last_message' | 'first_activity' | 'last_activity' | 'snippet'> & {
  first_message: string | null; last_message: string | null; first_activity_ns: string | null; last_activity_ns: string | null;
};

export async function conversations(ch: ClickHouse, plan: ConversationsPlan, opts: ReadOptions): Promise<{ conversations: ConversationRow[]; total_count: number }> {
  const project = str(plan.project_id);
  const where: Sql[] = [sql`project_id = ${project}`, raw('deleted = 0')];
  if (plan.active_after_ns !== null) where.push(sql`last_activity_ns >= ${i64(plan.active_after_ns)}`);
  if (plan.active_before_ns !== null) where.push(sql`last_activity_ns < ${i64(plan.active_before_ns)}`);
  if (plan.agent_names) where.push(sql`hasAny(agent_names, ${strs(plan.agent_names)})`);
  if (plan.models) where.push(sql`hasAny(models, ${strs(plan.models)})`);
  if (plan.status === 'error') where.push(raw('error_count > 0'));
  if (plan.status === 'ok') where.push(raw('error_count = 0'));
  if (plan.search !== null) {
    const text = plan.search;
    const cond = withProject(plan.project_id, () => searchSql(text));
    where.push(sql`conversation_id IN (SELECT conversation_id FROM spans FINAL WHERE project_id = ${project} AND deleted = 0 AND isNotNull(conversation_id) AND ${cond})`);
  }
  const order = join(plan.sort.map((s) => sql`${raw(SORT[s.field])}${dir(s.direction)}`), ', ');
  const { rows, total } = await ch.page<Row>(
    sql`SELECT conversation_id, conversation_name, first_message, last_message, turn_count, span_count, agent_names, request_models,
          total_input_tokens, total_output_tokens, total_cost_usd, error_count, first_activity_ns, last_activity_ns
        FROM conversation_summaries FINAL WHERE ${join(where, ' AND ')}
        ORDER BY ${order}${limit(plan.offset, plan.limit)}${FINAL_SETTINGS}`,
    opts,
  );
  const snippets = plan.search !== null && rows.length ? await snippetsOf(ch, plan.project_id, plan.search, rows.map((r) => r.conversation_id), opts) : new Map<string, string>();
  return {
    conversations: rows.map((r): ConversationRow => ({
      conversation_id: r.conversation_id,
      conversation_name: r.conversation_name,
      first_message: r.first_message ? { role: 'user_message', text: r.first_message } : null,
      last_message: r.last_message ? { role: 'assistant_message', text: r.last_message } : null,
      turn_count: Number(r.turn_count),
      span_count: Number(r.span_count),
      agent_names: r.agent_names,
      request_models: r.request_models,
      total_input_tokens: Number(r.total_input_tokens),
      total_output_tokens: Number(r.total_output_tokens),
      total_cost_usd: r.total_cost_usd,
      error_count: Number(r.error_count),
      first_activity: r.first_activity_ns == null ? null : isoFromNs(BigInt(r.first_activity_ns)),
      last_activity: r.last_activity_ns == null ? null : isoFromNs(BigInt(r.last_activity_ns)),
      snippet: plan.search !== null ? (snippets.get(r.conversation_id) ?? null) : null,
    })),
    total_count: total,
  };
}

/** The earliest matching span of each listed conversation, cut to a snippet. */
async function snippetsOf(ch: ClickHouse, projectId: string, text: string, ids: string[], opts: ReadOptions): Promise<Map<string, string>> {
  const cond = withProject(projectId, () => searchSql(text));
  const hits = await ch.rows<Parameters<typeof withSnippets>[3][number]>(
    sql`SELECT trace_id, span_id, conversation_id, day, tool_call_arguments, tool_call_result, str_values FROM spans FINAL
        WHERE project_id = ${str(projectId)} AND deleted = 0 AND conversation_id IN (${join(ids.map((c) => sql`${str(c)}`), ', ')}) AND ${cond}
        ORDER BY start_ns ASC NULLS LAST, span_id LIMIT 1 BY conversation_id${FINAL_SETTINGS}`,
    opts,
  );
  const out = new Map<string, string>();
  for (const h of await withSnippets(ch, projectId, text, hits, opts)) if (h.conversation_id && h.snippet) out.set(h.conversation_id, h.snippet);
  return out;
}
