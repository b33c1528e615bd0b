/**
 * SQL of the conversations list (conversations.list, issue 8 item 3): one indexed page of
 * `conversation_summaries` (migration 0006, maintained at ingest by summaries/conversations.ts).
 * Each sortable column has its own index, so a page is read in index order whatever the sort.
 */
import { conversationScoreSql } from './scores.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';
import type { ConversationRow, ConversationsPlan } from '../../domain/plans.js';
import type { ConversationsPage } from '../ports.js';
import { statementCache } from './analytics/stmt-cache.js';
import { createSearchReader } from './fts.js';
import { createConversationSearch, type Snippet } from './conversation-search.js';
import { conversationRow, summarySnippet, type ConversationSummary, type TraceRoot } from '../../domain/conversation-row.js';
import { afterKey, keyOf, leadingBound, orderOf, type KeyTest } from '../../domain/conversation-order.js';
import { searchScope } from '../../domain/search-text.js';
import { createTraceRoots } from './trace-roots.js';

/**
 * Columns a query shorter than a trigram matches (the full-text index answers longer ones): what the
 * list shows of a row — id, name, previews, agents, models.
 */
const SEARCHED = ['conversation_id', 'conversation_name', 'first_text', 'last_text', 'agent_names', 'request_models'] as const;
/** Rows read per step when walking the list's order for a common query (conversation-search.ts). */
const WALK_CHUNK = 500;

/**
 * A plan whose search the full-text index answers: the rows are restricted to `ids` (JSON array) instead.
 * `statusTest`: the status filter tests each row read in the sort's index, never reads an index range.
 */
export type IndexedPlan = ConversationsPlan & { ids?: boolean; statusTest?: boolean };

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A test of the cursor's key as SQL (domain/conversation-order.ts; SQLite sorts nulls first, as the rule). */
function keyTestSql(t: KeyTest, params: unknown[]): string {
  const c = `c.${t.column}`;
  if (!('value' in t)) return t.test === 'null' ? `${c} IS NULL` : `${c} IS NOT NULL`;
  params.push(t.value);
  switch (t.test) {
    case 'eq': return `${c} = ?`;
    case 'gt': return `${c} > ?`;
    case 'ge': return `${c} >= ?`;
    case 'lt_or_null': return `(${c} < ? OR ${c} IS NULL)`;
    case 'le_or_null': return `(${c} <= ? OR ${c} IS NULL)`;
  }
}

/** WHERE clause and parameters of a plan; `paging` adds the cursor's "after this row" (the page, not its count). */
export function conversationsWhere(plan: IndexedPlan, paging = true): { sql: string; params: unknown[] } {
  const and = ['c.project_id = ?'];
  const params: unknown[] = [plan.project_id];
  if (paging && plan.after) {
    const order = orderOf(plan.sort);
    // The first column's bound alone lets SQLite seek that column's index; the disjunction is exact.
    const bound = leadingBound(order, plan.after);
    if (bound) and.push(keyTestSql(bound, params));
    and.push(`(${afterKey(order, plan.after).map((all) => `(${all.map((t) => keyTestSql(t, params)).join(' AND ')})`).join(' OR ')})`);
  }
  if (plan.active_after_ns != null) {
    and.push('c.last_ns >= ?');
    params.push(plan.active_after_ns);
  }
  if (plan.active_before_ns != null) {
    and.push('c.last_ns < ?');
    params.push(plan.active_before_ns);
  }
  // Rows with one of the agents: a range of conversation_agents (migration 0026) per agent, not a test of every row's list.
  if (plan.agent_names) {
    and.push(`c.id IN (SELECT a.summary_id FROM conversation_agents a WHERE a.project_id = ? AND a.agent_name IN (${plan.agent_names.map(() => '?').join(', ') || 'NULL'}))`);
    params.push(plan.project_id, ...plan.agent_names);
  }
  // Rows with one of the models: a range of conversation_models (migration 0029) per model, as agents above.
  if (plan.models) {
    and.push(`c.id IN (SELECT m.summary_id FROM conversation_models m WHERE m.project_id = ? AND m.request_model IN (${plan.models.map(() => '?').join(', ') || 'NULL'}))`);
    params.push(plan.project_id, ...plan.models);
  }
  // (Unary + keeps SQLite from reading the status through conversation_summaries_errors: statusWalks.)
  const errors = plan.statusTest ? '+c.error_count' : 'c.error_count';
  if (plan.status === 'error') and.push(`${errors} > 0`);
  if (plan.status === 'ok') and.push(`${errors} = 0`);
  if (plan.ids) and.push('c.id IN (SELECT value FROM json_each(?))');
  if (plan.scores?.length) {
    const w = conversationScoreSql(plan.project_id, plan.scores);
    and.push(w.sql);
    params.push(...w.params);
  }
  if (plan.search) {
    and.push(`(${SEARCHED.map((c) => `c.${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...SEARCHED.map(() => likePattern(plan.search!)));
  }
  return { sql: and.join(' AND '), params };
}

/**
 * The rows a page and its count read. Restricted to the search's matching rows (`ids`), they are sought
 * by id: left to itself SQLite read the project's whole sort index (or, for the count, the cost index)
 * and tested each entry against the list — at 10M spans (500,210 rows) 35 ms for the page of `A-1187`'s
 * 277 rows and 25 ms for its count, against 1.5 and 0.1 ms by id.
 */
const fromRows = (plan: IndexedPlan) => (plan.ids ? 'conversation_summaries c NOT INDEXED' : 'conversation_summaries c');

export const CONVERSATIONS_SQL = {
  page: (plan: IndexedPlan) => {
    const order = orderOf(plan.sort).map((o) => `c.${o.column} ${o.direction === 'asc' ? 'ASC' : 'DESC'}`);
    return `SELECT c.id, c.kind, c.conversation_id, c.conversation_name, c.turn_count, c.span_count, c.error_count, c.input_tokens,
      c.output_tokens, c.usage_spans, c.cost_usd, c.first_ns, c.last_ns, c.agent_names, c.request_models, c.first_text, c.last_text
      FROM ${fromRows(plan)} WHERE ${conversationsWhere(plan).sql} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`;
  },
  count: (plan: IndexedPlan) => `SELECT COUNT(*) FROM ${fromRows(plan)} WHERE ${conversationsWhere(plan, false).sql}`,
  // Rows with an error: a range of the errors index, no row read.
  errorRows: `SELECT COUNT(*) FROM conversation_summaries c WHERE c.project_id = ? AND c.error_count > 0`,
  // Every row of a project (nothing filters the list): kept by triggers (migration 0026), not counted.
  projectCount: `SELECT rows FROM conversation_counts WHERE project_id = ?`,
  // Rows with one of some agents (or models) when nothing else filters: ranges of the kept table, no row read
  // (10,005 rows of one agent at 10M spans: 34 ms reading each row for its project, ~1 ms from the range).
  keptCount: (table: 'conversation_agents' | 'conversation_models', column: 'agent_name' | 'request_model', names: number) =>
    `SELECT COUNT(${names > 1 ? 'DISTINCT summary_id' : '*'}) FROM ${table} WHERE project_id = ? AND ${column} IN (${Array(names).fill('?').join(', ') || 'NULL'})`,
  // Filter choices: agents from the agent summaries, models from project_values (migration 0008).
  agents: `SELECT agent_name FROM agent_summaries WHERE project_id = ? ORDER BY agent_name`,
  models: `SELECT value FROM project_values WHERE project_id = ? AND field = 'request_model' ORDER BY value`,
};

/**
 * Whether a page filtered by status alone walks the sort's index testing each row (about page × total /
 * matching rows read) rather than reading every matching row through the errors index and sorting them
 * (29,672 rows, 61 ms of CPU for "with errors, by turns" at 6.2M spans, growing with the store): the
 * walk when matching² > page × total. Both answer the same rows in the same order.
 */
export function statusWalks(matching: number, total: number, rows: number): boolean {
  return matching * matching > rows * total;
}

/** Whether a plan keeps every row of its project (its count is conversation_counts'). */
const unfiltered = (p: IndexedPlan): boolean =>
  p.active_after_ns == null && p.active_before_ns == null && !p.agent_names && !p.models && p.status === 'all' && !p.search && !p.ids && !p.scores?.length;

/** A row as read: the summary with its rowid, names as JSON text. */
type Row = Omit<ConversationSummary, 'agent_names' | 'request_models'> & { id: bigint; agent_names: string; request_models: string };

const summaryOf = (r: Row): ConversationSummary => ({ ...r, agent_names: JSON.parse(r.agent_names) as string[], request_models: JSON.parse(r.request_models) as string[] });

export interface ConversationsRepo {
  list(plan: ConversationsPlan): ConversationsPage;
  /** The plan `list` reads a page with (how the status filter is read; the rows are the same). */
  readPlan(plan: ConversationsPlan): IndexedPlan;
  /** Every agent and request model of a project (the list's filter choices), sorted. */
  facets(projectId: string): { agent_names: string[]; request_models: string[] };
}

/**
 * `gatherBound`: candidate documents beyond which a query counts as common and is walked, for the
 * project's rows and the matching rows a page needs (conversation-search.ts gatherBound; tests lower it).
 */
export function createConversationsRepo(db: Db, opts: { gatherBound?: (rows: number, need: number) => number } = {}): ConversationsRepo {
  const prep: (sql: string) => Statement = statementCache(db, 64);
  const ints = (sql: string) => prep(sql).safeIntegers(true);
  const search = createConversationSearch(db, createSearchReader(db), opts.gatherBound);
  const projectRows = (projectId: string) => Number(prep(CONVERSATIONS_SQL.projectCount).pluck().get(projectId) ?? 0);
  const roots = createTraceRoots(db);
  const page = (plan: IndexedPlan, extra: unknown[], limit: number, offset: number): Row[] =>
    (ints(CONVERSATIONS_SQL.page(plan)).all(...conversationsWhere(plan).params, ...extra, limit, offset) as Record<string, unknown>[]).map(
      (r) => ({ ...r, turn_count: Number(r.turn_count), span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans) }) as Row,
    );
  const count = (plan: IndexedPlan, extra: unknown[]) => {
    if (unfiltered(plan)) return projectRows(plan.project_id);
    // Agents alone, or models alone: the kept rows by agent / by model (migrations 0026, 0029) hold the answer.
    if (plan.agent_names && unfiltered({ ...plan, agent_names: null })) return keptCount('conversation_agents', 'agent_name', plan.project_id, plan.agent_names);
    if (plan.models && unfiltered({ ...plan, models: null })) return keptCount('conversation_models', 'request_model', plan.project_id, plan.models);
    return Number(prep(CONVERSATIONS_SQL.count(plan)).pluck().get(...conversationsWhere(plan, false).params, ...extra));
  };
  const keptCount = (table: 'conversation_agents' | 'conversation_models', column: 'agent_name' | 'request_model', projectId: string, names: string[]) =>
    Number(prep(CONVERSATIONS_SQL.keptCount(table, column, names.length)).pluck().get(projectId, ...names));

  /** The plan a page is read with: a status filter alone is a test of the rows walked when statusWalks says so. */
  const readPlan = (plan: ConversationsPlan): IndexedPlan => {
    if (plan.status === 'all' || orderOf(plan.sort)[0]!.column === 'error_count' || !unfiltered({ ...plan, status: 'all' })) return plan;
    const total = projectRows(plan.project_id);
    const errors = Number(prep(CONVERSATIONS_SQL.errorRows).pluck().get(plan.project_id));
    return statusWalks(plan.status === 'error' ? errors : total - errors, total, plan.limit + 1 + plan.offset) ? { ...plan, statusTest: true } : plan;
  };

  /**
   * The answer from up to limit + 1 rows in the list's order (one more than the page tells whether
   * another page follows), with each row's snippet: found by the search, or (null) from its own texts.
   */
  const answer = (plan: ConversationsPlan, rows: { row: Row; snippet?: Snippet | null }[], total: () => number, exact = true): ConversationsPage => {
    const more = rows.length > plan.limit;
    const kept = more ? rows.slice(0, plan.limit) : rows;
    const summaries = kept.map(({ row }) => summaryOf(row));
    const traceRoots: Map<string, TraceRoot> = roots.of(plan.project_id, summaries.filter((r) => r.kind === 'trace').map((r) => r.conversation_id));
    const conversations: ConversationRow[] = summaries.map((r, i) => {
      const found = kept[i]!.snippet;
      const snippet = found !== undefined ? found : plan.search ? summarySnippet(r, plan.search) : null;
      return conversationRow(r, snippet, traceRoots.get(r.conversation_id) ?? null);
    });
    // The first page's count is the page itself when it holds every row.
    const count = !more && plan.offset === 0 && !plan.after ? rows.length : total();
    return { conversations, total_count: count, total_exact: exact, next: more ? keyOf(summaries[summaries.length - 1]!, orderOf(plan.sort)) : null };
  };

  /** A search the full-text index answers (3+ characters): the rows among the matches, or a walk (conversation-search.ts). */
  const indexedList = (plan: ConversationsPlan, needle: string): ConversationsPage => {
    const found = search.matches(plan.project_id, needle, projectRows(plan.project_id), plan.offset + plan.limit + 1)!;
    const base: IndexedPlan = { ...plan, search: null };
    if (!found.partial) {
      const restricted: IndexedPlan = { ...base, ids: true };
      const ids = [JSON.stringify([...found.snippets.keys()])];
      const rows = page(restricted, ids, plan.limit + 1, plan.offset).map((row) => ({ row, snippet: found.snippets.get(Number(row.id)) ?? null }));
      return answer(plan, rows, () => count(restricted, ids));
    }
    // A common query: the rows in the list's order (from the cursor), each checked; the count is a lower bound.
    const rows: { row: Row; snippet: Snippet }[] = [];
    let skip = plan.offset;
    let matched = 0;
    for (let at = 0; rows.length <= plan.limit; at += WALK_CHUNK) {
      const chunk = page(base, [], WALK_CHUNK, at);
      for (const r of chunk) {
        const snippet = found.snippets.get(Number(r.id)) ?? search.rowSnippet(plan.project_id, r.kind, r.conversation_id, needle);
        if (!snippet) continue;
        matched++;
        if (skip > 0) skip--;
        else if (rows.push({ row: r, snippet }) > plan.limit) break;
      }
      if (chunk.length < WALK_CHUNK) break;
    }
    return answer(plan, rows, () => Math.max(found.snippets.size, matched), false);
  };

  return {
    list(plan) {
      if (plan.search && searchScope(plan.search) === 'everything') return indexedList(plan, plan.search);
      const rows = page(readPlan(plan), [], plan.limit + 1, plan.offset).map((row) => ({ row }));
      return answer(plan, rows, () => count(plan, []));
    },
    readPlan,
    facets: (projectId) => ({
      agent_names: prep(CONVERSATIONS_SQL.agents).pluck().all(projectId) as string[],
      request_models: prep(CONVERSATIONS_SQL.models).pluck().all(projectId) as string[],
    }),
  };
}
