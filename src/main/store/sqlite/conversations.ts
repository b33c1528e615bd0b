/**
 * SQL of the conversations list (conversations.list, issue 8 item 3): one indexed page of
 * `conversation_summaries` (migration 0006, maintained at ingest by summaries/conversations.ts).
 * Each sortable column has its own index, so a page is read in index order whatever the sort.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { ConversationRow, ConversationSortField, ConversationsPlan } from '../../domain/plans.js';
import { isoFromNs } from '../../domain/time.js';
import { statementCache } from './analytics/stmt-cache.js';

const SORT_COLUMN: Record<ConversationSortField, string> = {
  conversation_id: 'conversation_id', conversation_name: 'conversation_name', turn_count: 'turn_count', span_count: 'span_count',
  error_count: 'error_count', total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', total_cost_usd: 'cost_usd',
  first_activity: 'first_ns', last_activity: 'last_ns',
};

/** Columns the interim search matches (full-text search replaces it, issue 8 item 4). */
const SEARCHED = ['conversation_id', 'conversation_name', 'first_text', 'last_text', 'agent_names', 'request_models'] as const;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** WHERE clause and parameters of a plan (the same for the page and its count). */
function whereOf(plan: ConversationsPlan): { sql: string; params: unknown[] } {
  const and = ['c.project_id = ?'];
  const params: unknown[] = [plan.project_id];
  if (plan.active_after_ns != null) and.push('c.last_ns >= ?'), params.push(plan.active_after_ns);
  if (plan.active_before_ns != null) and.push('c.last_ns < ?'), params.push(plan.active_before_ns);
  for (const [col, values] of [['agent_names', plan.agent_names], ['request_models', plan.models]] as const) {
    if (!values) continue;
    and.push(`EXISTS (SELECT 1 FROM json_each(c.${col}) j WHERE j.value IN (${values.map(() => '?').join(', ') || 'NULL'}))`);
    params.push(...values);
  }
  if (plan.status === 'error') and.push('c.error_count > 0');
  if (plan.status === 'ok') and.push('c.error_count = 0');
  if (plan.search) {
    and.push(`(${SEARCHED.map((c) => `c.${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...SEARCHED.map(() => likePattern(plan.search!)));
  }
  return { sql: and.join(' AND '), params };
}

export const CONVERSATIONS_SQL = {
  page: (plan: ConversationsPlan) => {
    const order = plan.sort.map((s) => `c.${SORT_COLUMN[s.field]} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`);
    if (!plan.sort.some((s) => s.field === 'conversation_id')) order.push('c.conversation_id ASC');
    order.push('c.kind ASC');
    return `SELECT c.kind, c.conversation_id, c.conversation_name, c.turn_count, c.span_count, c.error_count, c.input_tokens,
      c.output_tokens, c.cost_usd, c.first_ns, c.last_ns, c.agent_names, c.request_models, c.first_text, c.last_text
      FROM conversation_summaries c WHERE ${whereOf(plan).sql} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`;
  },
  count: (plan: ConversationsPlan) => `SELECT COUNT(*) FROM conversation_summaries c WHERE ${whereOf(plan).sql}`,
  // Filter choices: agents from the agent summaries, models from project_values (migration 0008).
  agents: `SELECT agent_name FROM agent_summaries WHERE project_id = ? ORDER BY agent_name`,
  models: `SELECT value FROM project_values WHERE project_id = ? AND field = 'request_model' ORDER BY value`,
};

interface Row {
  kind: 'conversation' | 'trace';
  conversation_id: string;
  conversation_name: string | null;
  turn_count: number;
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  first_ns: bigint | null;
  last_ns: bigint | null;
  agent_names: string;
  request_models: string;
  first_text: string | null;
  last_text: string | null;
}

/** Plain-text excerpt around the first case-insensitive match of `needle`, with the match offsets. */
export function snippetOf(text: string, needle: string, context = 60): { text: string; matches: [number, number][] } | null {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at < 0) return null;
  const start = Math.max(0, at - context);
  const end = Math.min(text.length, at + needle.length + context);
  const lead = start > 0 ? '…' : '';
  const excerpt = `${lead}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
  const lower = excerpt.toLowerCase();
  const n = needle.toLowerCase();
  const matches: [number, number][] = [];
  for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) matches.push([i, i + n.length]);
  return { text: excerpt, matches };
}

function toRow(r: Row, search: string | null): ConversationRow {
  const agents = JSON.parse(r.agent_names) as string[];
  const models = JSON.parse(r.request_models) as string[];
  let snippet: ConversationRow['snippet'] = null;
  if (search) {
    for (const text of [r.first_text, r.last_text, r.conversation_name, r.conversation_id, agents.join(', '), models.join(', ')]) {
      if (text && (snippet = snippetOf(text, search))) break;
    }
  }
  return {
    kind: r.kind,
    conversation_id: r.conversation_id,
    conversation_name: r.conversation_name,
    first_message: r.first_text == null ? null : { role: 'user_message', text: r.first_text },
    last_message: r.last_text == null ? null : { role: 'assistant_message', text: r.last_text },
    turn_count: r.turn_count,
    span_count: r.span_count,
    agent_names: agents,
    request_models: models,
    total_input_tokens: r.input_tokens,
    total_output_tokens: r.output_tokens,
    total_cost_usd: r.cost_usd,
    error_count: r.error_count,
    first_activity: r.first_ns == null ? null : isoFromNs(r.first_ns),
    last_activity: r.last_ns == null ? null : isoFromNs(r.last_ns),
    snippet,
  };
}

export interface ConversationsRepo {
  list(plan: ConversationsPlan): { conversations: ConversationRow[]; total_count: number };
  /** Every agent and request model of a project (the list's filter choices), sorted. */
  facets(projectId: string): { agent_names: string[]; request_models: string[] };
  /** EXPLAIN QUERY PLAN details of a page (tests pin the index each sort reads). */
  explain(plan: ConversationsPlan): string[];
}

export function createConversationsRepo(db: Db): ConversationsRepo {
  const prep: (sql: string) => Statement = statementCache(db, 64);
  const ints = (sql: string) => prep(sql).safeIntegers(true);
  return {
    list(plan) {
      const { params } = whereOf(plan);
      const rows = (ints(CONVERSATIONS_SQL.page(plan)).all(...params, plan.limit, plan.offset) as Record<string, unknown>[]).map(
        (r) => toRow({ ...r, turn_count: Number(r.turn_count), span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens) } as Row, plan.search),
      );
      const total = rows.length < plan.limit && plan.offset === 0 ? rows.length : Number(prep(CONVERSATIONS_SQL.count(plan)).pluck().get(...params));
      return { conversations: rows, total_count: total };
    },
    facets: (projectId) => ({
      agent_names: prep(CONVERSATIONS_SQL.agents).pluck().all(projectId) as string[],
      request_models: prep(CONVERSATIONS_SQL.models).pluck().all(projectId) as string[],
    }),
    explain(plan) {
      const { params } = whereOf(plan);
      return (db.prepare(`EXPLAIN QUERY PLAN ${CONVERSATIONS_SQL.page(plan)}`).all(...params, plan.limit, plan.offset) as { detail: string }[]).map((r) => r.detail);
    },
  };
}
