/**
 * SQL of the conversations list (conversations.list, issue 8 item 3): one indexed page of
 * `conversation_summaries` (migration 0006, maintained at ingest by summaries/conversations.ts).
 * Each sortable column has its own index, so a page is read in index order whatever the sort.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { ConversationRow, ConversationSortField, ConversationsPlan } from '../../domain/plans.js';
import { statementCache } from './analytics/stmt-cache.js';
import { MIN_INDEXED_CHARS, createSearchReader } from './fts.js';
import { createConversationSearch, type Snippet } from './conversation-search.js';
import { conversationRow, summarySnippet, type ConversationSummary } from '../../domain/conversation-row.js';

const SORT_COLUMN: Record<ConversationSortField, string> = {
  conversation_id: 'conversation_id', conversation_name: 'conversation_name', turn_count: 'turn_count', span_count: 'span_count',
  error_count: 'error_count', total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', total_cost_usd: 'cost_usd',
  first_activity: 'first_ns', last_activity: 'last_ns',
};

/**
 * Columns a query shorter than a trigram matches (the full-text index answers longer ones): what the
 * list shows of a row — id, name, previews, agents, models.
 */
const SEARCHED = ['conversation_id', 'conversation_name', 'first_text', 'last_text', 'agent_names', 'request_models'] as const;
/** Rows read per step when walking the list's order for a common query (conversation-search.ts). */
const WALK_CHUNK = 500;

/** A plan whose search the full-text index answers: the rows are restricted to `ids` (JSON array) instead. */
type IndexedPlan = ConversationsPlan & { ids?: boolean };

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** WHERE clause and parameters of a plan (the same for the page and its count). */
export function conversationsWhere(plan: IndexedPlan): { sql: string; params: unknown[] } {
  const and = ['c.project_id = ?'];
  const params: unknown[] = [plan.project_id];
  if (plan.active_after_ns != null) {
    and.push('c.last_ns >= ?');
    params.push(plan.active_after_ns);
  }
  if (plan.active_before_ns != null) {
    and.push('c.last_ns < ?');
    params.push(plan.active_before_ns);
  }
  for (const [col, values] of [['agent_names', plan.agent_names], ['request_models', plan.models]] as const) {
    if (!values) continue;
    and.push(`EXISTS (SELECT 1 FROM json_each(c.${col}) j WHERE j.value IN (${values.map(() => '?').join(', ') || 'NULL'}))`);
    params.push(...values);
  }
  if (plan.status === 'error') and.push('c.error_count > 0');
  if (plan.status === 'ok') and.push('c.error_count = 0');
  if (plan.ids) and.push('c.id IN (SELECT value FROM json_each(?))');
  if (plan.search) {
    and.push(`(${SEARCHED.map((c) => `c.${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...SEARCHED.map(() => likePattern(plan.search!)));
  }
  return { sql: and.join(' AND '), params };
}

export const CONVERSATIONS_SQL = {
  page: (plan: IndexedPlan) => {
    const order = plan.sort.map((s) => `c.${SORT_COLUMN[s.field]} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`);
    if (!plan.sort.some((s) => s.field === 'conversation_id')) order.push('c.conversation_id ASC');
    order.push('c.kind ASC');
    return `SELECT c.id, c.kind, c.conversation_id, c.conversation_name, c.turn_count, c.span_count, c.error_count, c.input_tokens,
      c.output_tokens, c.usage_spans, c.cost_usd, c.first_ns, c.last_ns, c.agent_names, c.request_models, c.first_text, c.last_text
      FROM conversation_summaries c WHERE ${conversationsWhere(plan).sql} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`;
  },
  count: (plan: IndexedPlan) => `SELECT COUNT(*) FROM conversation_summaries c WHERE ${conversationsWhere(plan).sql}`,
  // Filter choices: agents from the agent summaries, models from project_values (migration 0008).
  agents: `SELECT agent_name FROM agent_summaries WHERE project_id = ? ORDER BY agent_name`,
  models: `SELECT value FROM project_values WHERE project_id = ? AND field = 'request_model' ORDER BY value`,
};

/** A row as read: the summary with its rowid, names as JSON text. */
type Row = Omit<ConversationSummary, 'agent_names' | 'request_models'> & { id: bigint; agent_names: string; request_models: string };

function toRow(r: Row, search: string | null, found?: Snippet | null): ConversationRow {
  const summary = { ...r, agent_names: JSON.parse(r.agent_names) as string[], request_models: JSON.parse(r.request_models) as string[] };
  const snippet = found !== undefined ? found : search ? summarySnippet(summary, search) : null;
  return conversationRow(summary, snippet);
}

export interface ConversationsRepo {
  list(plan: ConversationsPlan): { conversations: ConversationRow[]; total_count: number };
  /** Every agent and request model of a project (the list's filter choices), sorted. */
  facets(projectId: string): { agent_names: string[]; request_models: string[] };
}

/** `gatherDocs`: candidate documents beyond which a query counts as common and is walked (tests lower it). */
export function createConversationsRepo(db: Db, opts: { gatherDocs?: number } = {}): ConversationsRepo {
  const prep: (sql: string) => Statement = statementCache(db, 64);
  const ints = (sql: string) => prep(sql).safeIntegers(true);
  const search = createConversationSearch(db, createSearchReader(db), opts.gatherDocs);
  const page = (plan: IndexedPlan, extra: unknown[], limit: number, offset: number): Row[] =>
    (ints(CONVERSATIONS_SQL.page(plan)).all(...conversationsWhere(plan).params, ...extra, limit, offset) as Record<string, unknown>[]).map(
      (r) => ({ ...r, turn_count: Number(r.turn_count), span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans) }) as Row,
    );
  const count = (plan: IndexedPlan, extra: unknown[]) => Number(prep(CONVERSATIONS_SQL.count(plan)).pluck().get(...conversationsWhere(plan).params, ...extra));

  /** A search the full-text index answers (3+ characters): the rows among the matches, or a walk (conversation-search.ts). */
  const indexedList = (plan: ConversationsPlan, needle: string) => {
    const found = search.matches(plan.project_id, needle)!;
    const base: IndexedPlan = { ...plan, search: null };
    if (!found.partial) {
      const restricted: IndexedPlan = { ...base, ids: true };
      const ids = [JSON.stringify([...found.snippets.keys()])];
      const rows = page(restricted, ids, plan.limit, plan.offset).map((r) => toRow(r, needle, found.snippets.get(Number(r.id)) ?? null));
      const total = rows.length < plan.limit && plan.offset === 0 ? rows.length : count(restricted, ids);
      return { conversations: rows, total_count: total };
    }
    // A common query: the rows in the list's order, each checked; the count is a lower bound.
    const rows: ConversationRow[] = [];
    let skip = plan.offset;
    let matched = 0;
    for (let at = 0; rows.length < plan.limit; at += WALK_CHUNK) {
      const chunk = page(base, [], WALK_CHUNK, at);
      for (const r of chunk) {
        const snippet = found.snippets.get(Number(r.id)) ?? search.rowSnippet(plan.project_id, r.kind, r.conversation_id, needle);
        if (!snippet) continue;
        matched++;
        if (skip > 0) skip--;
        else if (rows.push(toRow(r, needle, snippet)) === plan.limit) break;
      }
      if (chunk.length < WALK_CHUNK) break;
    }
    return { conversations: rows, total_count: Math.max(found.snippets.size, matched) };
  };

  return {
    list(plan) {
      if (plan.search && [...plan.search].length >= MIN_INDEXED_CHARS) return indexedList(plan, plan.search);
      const rows = page(plan, [], plan.limit, plan.offset).map((r) => toRow(r, plan.search));
      const total = rows.length < plan.limit && plan.offset === 0 ? rows.length : count(plan, []);
      return { conversations: rows, total_count: total };
    },
    facets: (projectId) => ({
      agent_names: prep(CONVERSATIONS_SQL.agents).pluck().all(projectId) as string[],
      request_models: prep(CONVERSATIONS_SQL.models).pluck().all(projectId) as string[],
    }),
  };
}
