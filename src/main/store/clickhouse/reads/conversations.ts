/**
 * The conversations list (conversations.list, issue 8 item 3) from conversation_summaries: the same
 * rows, filters, search, order and cursor as the SQLite adapter, by the rules of domain/
 * (conversation-order.ts: the complete order and "after this key"; search-text.ts: what a search
 * looks at; conversation-row.ts: the row).
 *
 * A search of what was said (3+ characters) finds the matching spans (matches.ts), gives each its
 * rows — a trace without a conversation is its own row; a span belongs to the conversations of its
 * trace it does not contradict (untagged, or tagged with that conversation: semantics §4.1) — and
 * each row its newest matching span's excerpt; the rows' summaries are then filtered here, counted
 * and ordered by the domain's comparison, which is the SQL order's rule.
 */
import type { ConversationRow, ConversationsPlan } from '../../../domain/plans.js';
import type { ConversationsPage, ReadOptions } from '../../ports.js';
import { conversationRow, ownsSpan, summarySnippet, type ConversationSummary, type RootCandidate, type TraceRoot, traceRoot } from '../../../domain/conversation-row.js';
import { afterKey, compareKeys, columnKind, keyOf, leadingBound, orderOf, type ConversationKey, type KeyTest, type Order } from '../../../domain/conversation-order.js';
import { searchScope } from '../../../domain/search-text.js';
import { conversationScoreSql } from '../scores.js';
import type { ClickHouse } from '../connection.js';
import { dir, i64, ident, join, limit, raw, sql, str, strs, u64, type Sql } from '../sql.js';
import { FINAL_SETTINGS, currentSpans } from './scope.js';
import { daysBetween } from '../encode.js';
import { CHUNK, gatherBound, idList, matcher, newestFirst, slices, type Chunking, type GatherRows, type Matcher, type Snippet, type SpanHit } from './matches.js';
import { GATHER_DOCS } from '../../../domain/gather-bound.js';

type Row = {
  kind: 'conversation' | 'trace'; conversation_id: string; conversation_name: string | null; turn_count: number; span_count: string;
  error_count: string; input_tokens: string; output_tokens: string; usage_spans: string | number; cost_usd: number | null; first_ns: string | null; last_ns: string | null;
  agent_names: string[]; request_models: string[]; first_text: string | null; last_text: string | null;
};

const ROW_COLUMNS = raw(`kind, conversation_id, conversation_name, turn_count, span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd,
  first_ns, last_ns, agent_names, request_models, first_text, last_text`);

/** Ids per IN list (matches.ts CHUNK: well under the server's 256 KiB query size). */
const chunks = <T>(xs: readonly T[]): T[][] => slices(xs, CHUNK);

/** A query under MIN_SEARCH_CHARS: a case-insensitive substring of what the list shows of a row (ASCII case folding, as SQLite's LIKE). */
function listedTexts(text: string): Sql {
  const n = str(text);
  const hit = (c: string) => sql`positionCaseInsensitive(ifNull(${ident(c)}, ''), ${n}) > 0`;
  return sql`(${join(['conversation_id', 'conversation_name', 'first_text', 'last_text'].map(hit), ' OR ')}
    OR arrayExists(x -> positionCaseInsensitive(x, ${n}) > 0, agent_names) OR arrayExists(x -> positionCaseInsensitive(x, ${n}) > 0, request_models))`;
}

/** A key value as SQL: a float exactly, through its bits (18.16 parses float text to the nearest few ulps only). */
function keyValue(t: KeyTest & { value: unknown }): Sql {
  const kind = columnKind(t.column);
  if (kind === 'text') return sql`${str(t.value as string)}`;
  if (kind === 'real') {
    const bits = Buffer.alloc(8);
    bits.writeDoubleLE(t.value as number);
    return sql`reinterpretAsFloat64(reinterpretAsString(toUInt64(${u64(bits.readBigUInt64LE())})))`;
  }
  return sql`${i64(t.value as number | bigint)}`;
}

function keyTestSql(t: KeyTest): Sql {
  const c = ident(t.column);
  if (!('value' in t)) return t.test === 'null' ? sql`isNull(${c})` : sql`isNotNull(${c})`;
  const v = keyValue(t);
  switch (t.test) {
    case 'eq': return sql`${c} = ${v}`;
    case 'gt': return sql`${c} > ${v}`;
    case 'ge': return sql`${c} >= ${v}`;
    case 'lt_or_null': return sql`(${c} < ${v} OR isNull(${c}))`;
    case 'le_or_null': return sql`(${c} <= ${v} OR isNull(${c}))`;
  }
}

function afterSql(order: Order, key: ConversationKey): Sql {
  const bound = leadingBound(order, key);
  const any = join(afterKey(order, key).map((all) => sql`(${join(all.map(keyTestSql), ' AND ')})`), ' OR ');
  return bound ? sql`${keyTestSql(bound)} AND (${any})` : sql`(${any})`;
}

function filtersOf(plan: ConversationsPlan): Sql[] {
  const where: Sql[] = [sql`project_id = ${str(plan.project_id)}`, raw('deleted = 0')];
  if (plan.active_after_ns !== null) where.push(sql`last_ns >= ${i64(plan.active_after_ns)}`);
  if (plan.active_before_ns !== null) where.push(sql`last_ns < ${i64(plan.active_before_ns)}`);
  if (plan.agent_names) where.push(sql`hasAny(agent_names, ${strs(plan.agent_names)})`);
  if (plan.models) where.push(sql`hasAny(request_models, ${strs(plan.models)})`);
  if (plan.status === 'error') where.push(raw('error_count > 0'));
  if (plan.status === 'ok') where.push(raw('error_count = 0'));
  if (plan.scores?.length) where.push(conversationScoreSql(plan.project_id, plan.scores));
  return where;
}

const summaryOf = (r: Row): ConversationSummary => ({
  ...r, turn_count: Number(r.turn_count), span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens),
  output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans), first_ns: r.first_ns == null ? null : BigInt(r.first_ns), last_ns: r.last_ns == null ? null : BigInt(r.last_ns),
});

/**
 * When a search is gathered (matches.ts gatherBound): up to `floor` candidate documents always, past it
 * up to `bound` of the project's list rows and the matching rows the page needs (tests lower both).
 */
export interface GatherRule {
  floor: number;
  bound: (rows: number, need: number) => number;
  /** Ids and days per statement of the gather and the walk (matches.ts; tests lower them). */
  chunking?: Chunking;
}

export const GATHER_RULE: GatherRule = { floor: GATHER_DOCS, bound: gatherBound };

export async function conversations(ch: ClickHouse, plan: ConversationsPlan, opts: ReadOptions, rule: GatherRule = GATHER_RULE): Promise<ConversationsPage> {
  if (plan.search && searchScope(plan.search) === 'everything') return searched(ch, plan, plan.search, opts, rule);
  const order = orderOf(plan.sort);
  const where = filtersOf(plan);
  if (plan.search) where.push(listedTexts(plan.search));
  const paged = plan.after ? [...where, afterSql(order, plan.after)] : where;
  const orderBy = join(order.map((o) => sql`${ident(o.column)}${dir(o.direction)}`), ', ');
  // Two steps: the page's keys first, sorting only the columns the order and filters name (18.16 reads
  // every selected column of every row before it sorts: the previews would be read for the whole
  // project), then the page's rows by key, a seek of the table's sorting key.
  const [{ rows: keys, total: counted }, total] = await Promise.all([
    ch.page<{ kind: string; conversation_id: string }>(
      sql`SELECT kind, conversation_id FROM conversation_summaries FINAL WHERE ${join(paged, ' AND ')}
          ORDER BY ${orderBy}${limit(plan.offset, plan.limit + 1)}${FINAL_SETTINGS}`,
      opts,
    ),
    // After a cursor the page's own count is of the rows after it: the list's is counted apart.
    plan.after ? countOf(ch, where, opts) : Promise.resolve(null),
  ]);
  const more = keys.length > plan.limit;
  const pageKeys = keys.slice(0, plan.limit);
  const rows = pageKeys.length ? await rowsOf(ch, plan.project_id, pageKeys.map((k) => k.conversation_id), opts) : [];
  const byKey = new Map(rows.map((r) => [`${r.kind}\u0000${r.conversation_id}`, r]));
  // A row deleted between the two steps is left out (as if the page had been read a moment later).
  const page = pageKeys.map((k) => byKey.get(`${k.kind}\u0000${k.conversation_id}`)).filter((r): r is ConversationSummary => r !== undefined);
  return finish(ch, plan, page.map((r) => ({ row: r, snippet: plan.search ? summarySnippet(r, plan.search) : null })), total ?? counted, true, more, opts);
}

async function countOf(ch: ClickHouse, where: Sql[], opts: ReadOptions): Promise<number> {
  const [r] = await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM conversation_summaries FINAL WHERE ${join(where, ' AND ')}${FINAL_SETTINGS}`, opts);
  return Number(r?.n ?? 0);
}

/**
 * The rows of `ids`, by key, from conversation_rows (migration 0016: conversation_summaries' rows in 128-row granules,
 * so rows spread over the store cost a small granule each, not an 8,192-row one).
 */
async function rowsOf(ch: ClickHouse, projectId: string, ids: string[], opts: ReadOptions, extra: Sql[] = []): Promise<ConversationSummary[]> {
  const out: ConversationSummary[] = [];
  for (const part of chunks(ids)) {
    const rows = await ch.rows<Row>(
      sql`SELECT ${ROW_COLUMNS} FROM conversation_rows FINAL WHERE project_id = ${str(projectId)} AND deleted = 0
          AND conversation_id IN (${idList(part)})${extra.length ? sql` AND ${join(extra, ' AND ')}` : raw('')}${FINAL_SETTINGS}`,
      opts,
    );
    out.push(...rows.map(summaryOf));
  }
  return out;
}

/** The page's rows with their trace roots, and the cursor of the next page. */
async function finish(
  ch: ClickHouse, plan: ConversationsPlan, page: { row: ConversationSummary; snippet: ConversationRow['snippet'] }[], total: number, exact: boolean, more: boolean, opts: ReadOptions,
): Promise<ConversationsPage> {
  const roots = await traceRoots(ch, plan.project_id, page.filter((p) => p.row.kind === 'trace').map((p) => p.row.conversation_id), opts);
  const conversations = page.map((p) => conversationRow(p.row, p.snippet, roots.get(p.row.conversation_id) ?? null));
  const last = page[page.length - 1];
  return { conversations, total_count: total, total_exact: exact, next: more && last ? keyOf(last.row, orderOf(plan.sort)) : null };
}

/**
 * Rows of the list's order a common search's walk reads per step, at most; its first step reads a quarter more
 * than the page needs (at least 50: a common word matches most rows, and a step checks all its rows' traces —
 * 500 rows, 3,500 traces for a 200-row page of `warehouse`), each later one twice the one before.
 */
const WALK_ROWS = 500;
const FIRST_WALK_ROWS = 50;

/**
 * A common search (more candidate documents than matches.ts gatherBound): the rows in the list's order (from the cursor), each
 * checked against its candidate traces, until the page is full; the count is a lower bound (the rows
 * walked that matched), as on SQLite. Each step reads a window of rows, their traces (conversation_keys),
 * which of those the index names, and those traces' spans.
 */
async function walked(ch: ClickHouse, plan: ConversationsPlan, m: Matcher, opts: ReadOptions): Promise<ConversationsPage> {
  const order = orderOf(plan.sort);
  const where = filtersOf(plan);
  const paged = plan.after ? [...where, afterSql(order, plan.after)] : where;
  const orderBy = join(order.map((o) => sql`${ident(o.column)}${dir(o.direction)}`), ', ');
  const found: { row: ConversationSummary; hit: SpanHit }[] = [];
  let skip = plan.offset;
  let matched = 0;
  let step = Math.min(WALK_ROWS, Math.max(FIRST_WALK_ROWS, Math.ceil((plan.offset + plan.limit + 1) * 1.25)));
  for (let at = 0; found.length <= plan.limit; at += step, step = Math.min(WALK_ROWS, step * 2)) {
    const keys = await ch.rows<{ kind: string; conversation_id: string }>(
      sql`SELECT kind, conversation_id FROM conversation_summaries FINAL WHERE ${join(paged, ' AND ')}
          ORDER BY ${orderBy}${limit(at, step)}${FINAL_SETTINGS}`,
      opts,
    );
    // Each row's traces (a conversation's turns, a trace row's own trace) and the days their spans lie in.
    const conversationIds = keys.filter((k) => k.kind === 'conversation').map((k) => k.conversation_id);
    const tracesOf = new Map<string, string[]>();
    const daysOf = new Map<string, string[]>();
    for (const part of chunks(conversationIds)) {
      const turns = await ch.rows<{ conversation_id: string; trace_id: string; first_day: string; last_day: string }>(
        sql`SELECT conversation_id, trace_id, toString(first_day) AS first_day, toString(last_day) AS last_day FROM conversation_keys FINAL
            WHERE project_id = ${str(plan.project_id)} AND deleted = 0 AND conversation_id IN (${idList(part)})${FINAL_SETTINGS}`,
        opts,
      );
      for (const t of turns) {
        tracesOf.set(t.conversation_id, [...(tracesOf.get(t.conversation_id) ?? []), t.trace_id]);
        daysOf.set(t.trace_id, daysBetween(t.first_day, t.last_day));
      }
    }
    for (const part of chunks(keys.filter((k) => k.kind === 'trace').map((k) => k.conversation_id))) {
      const traces = await ch.rows<{ trace_id: string; first_day: string; last_day: string }>(
        sql`SELECT trace_id, toString(first_day) AS first_day, toString(last_day) AS last_day FROM trace_keys FINAL
            WHERE project_id = ${str(plan.project_id)} AND deleted = 0 AND trace_id IN (${idList(part)})${FINAL_SETTINGS}`,
        opts,
      );
      for (const t of traces) daysOf.set(t.trace_id, daysBetween(t.first_day, t.last_day));
    }
    // Their candidate traces (the documents holding the needle in those days) and those traces' matching spans.
    const hits = await m.spansIn(daysOf);
    hits.sort(newestFirst);
    const byTrace = new Map<string, SpanHit[]>();
    for (const h of hits) byTrace.set(h.trace_id, [...(byTrace.get(h.trace_id) ?? []), h]);
    // A row's newest matching span among its traces' (a span tagged with another conversation is not its own).
    const hitOf = (kind: string, id: string): SpanHit | null => {
      const own = kind === 'trace' ? (byTrace.get(id) ?? []) : (tracesOf.get(id) ?? []).flatMap((t) => (byTrace.get(t) ?? []).filter((h) => ownsSpan(h, id)));
      return own.length ? own.reduce((a, b) => (newestFirst(a, b) <= 0 ? a : b)) : null;
    };
    const rows = new Map((await rowsOf(ch, plan.project_id, [...new Set(keys.map((k) => k.conversation_id))], opts)).map((r) => [`${r.kind}\u0000${r.conversation_id}`, r]));
    for (const k of keys) {
      const hit = hitOf(k.kind, k.conversation_id);
      const row = rows.get(`${k.kind}\u0000${k.conversation_id}`);
      if (!hit || !row) continue;
      matched++;
      if (skip > 0) skip--;
      else if (found.push({ row, hit }) > plan.limit) break;
    }
    if (keys.length < step) break;
  }
  const more = found.length > plan.limit;
  const page = found.slice(0, plan.limit);
  const snippets = await m.snippets(page.map((p) => p.hit));
  return finish(ch, plan, page.map((p) => ({ row: p.row, snippet: snippets.get(`${p.hit.trace_id}/${p.hit.span_id}`) ?? null })), matched, false, more, opts);
}

/** A search of what was said (see the file's comment). */
async function searched(ch: ClickHouse, plan: ConversationsPlan, needle: string, opts: ReadOptions, rule: GatherRule): Promise<ConversationsPage> {
  // The list's rows are counted only for a needle past the floor (a rare one reads nothing more).
  const past = async () => rule.bound(await countOf(ch, filtersOf(plan).slice(0, 2), opts), plan.offset + plan.limit + 1);
  const m = matcher(ch, plan.project_id, needle, opts, { floor: rule.floor, past }, rule.chunking);
  if (await m.common()) return walked(ch, plan, m, opts);
  // The conversations of candidate traces (their trace rows, written by the writer), from trace_keys:
  // the same rows in 128-row granules (migrations 0004, 0010), so a candidate trace costs a small granule
  // where trace_summaries' 8,192-row ones read most of the table for a few hundred random ids.
  const convs = new Map<string, string[]>();
  const readConvs = async (traceIds: readonly string[]) => {
    for (const part of chunks(traceIds.filter((t) => !convs.has(t)))) {
      const rows = await ch.rows<{ trace_id: string; conversation_ids: string[] }>(
        sql`SELECT trace_id, conversation_ids FROM trace_keys FINAL WHERE project_id = ${str(plan.project_id)} AND deleted = 0
            AND trace_id IN (${idList(part)})${FINAL_SETTINGS}`,
        opts,
      );
      for (const r of rows) convs.set(r.trace_id, r.conversation_ids);
    }
  };
  const keyOfRow = (kind: string, id: string) => `${kind}\u0000${id}`;
  /** The rows a trace's spans may belong to; of a hit, those it belongs to (null: the trace was deleted meanwhile). */
  const rowsOfTrace = (t: string): string[] | null => {
    const of = convs.get(t);
    return !of ? null : of.length ? of.map((c) => keyOfRow('conversation', c)) : [keyOfRow('trace', t)];
  };
  const rowsOfHit = (h: SpanHit): string[] => {
    const of = convs.get(h.trace_id);
    return !of ? [] : of.length ? of.filter((c) => ownsSpan(h, c)).map((c) => keyOfRow('conversation', c)) : [keyOfRow('trace', h.trace_id)];
  };
  // A candidate trace is checked unless every row it belongs to has matched in a newer day (SQLite's gather skips those too).
  const matchedRows = new Set<string>();
  const held: GatherRows = {
    async keep(traceIds) {
      await readConvs(traceIds);
      return traceIds.filter((t) => rowsOfTrace(t)?.some((r) => !matchedRows.has(r)) ?? false);
    },
    seen(hits) {
      for (const h of hits) for (const r of rowsOfHit(h)) matchedRows.add(r);
    },
  };
  const hits = await m.spans(Number.POSITIVE_INFINITY, held);
  await readConvs([...new Set(hits.map((h) => h.trace_id))]);
  // Each row's newest matching span (hits are newest first).
  const source = new Map<string, SpanHit>();
  for (const h of hits) for (const k of rowsOfHit(h)) if (!source.has(k)) source.set(k, h);
  const ids = [...new Set([...source.keys()].map((k) => k.split('\u0000')[1]!))];
  const order = orderOf(plan.sort);
  const matched = (await rowsOf(ch, plan.project_id, ids, opts, filtersOf(plan).slice(2)))
    .filter((r) => source.has(keyOfRow(r.kind, r.conversation_id)))
    .map((r) => ({ r, key: keyOf(r, order) }))
    .sort((a, b) => compareKeys(order, a.key, b.key));
  const after = plan.after;
  const rest = after ? matched.filter((x) => compareKeys(order, x.key, after) > 0) : matched;
  const window = rest.slice(plan.offset, plan.offset + plan.limit + 1);
  const more = window.length > plan.limit;
  const page = window.slice(0, plan.limit);
  const snippets = await m.snippets(page.map((x) => source.get(keyOfRow(x.r.kind, x.r.conversation_id))!));
  const snippetOfRow = (r: ConversationSummary): Snippet | null => {
    const h = source.get(keyOfRow(r.kind, r.conversation_id))!;
    return snippets.get(`${h.trace_id}/${h.span_id}`) ?? null;
  };
  return finish(ch, plan, page.map((x) => ({ row: x.r, snippet: snippetOfRow(x.r) })), matched.length, true, more, opts);
}

/** Trace id → the root of each listed trace (the writer's choice, trace_summaries.root_span_id), in two reads for the page. */
async function traceRoots(ch: ClickHouse, projectId: string, traceIds: string[], opts: ReadOptions): Promise<Map<string, TraceRoot>> {
  const out = new Map<string, TraceRoot>();
  if (!traceIds.length) return out;
  const p = str(projectId);
  const roots = await ch.rows<{ trace_id: string; root_span_id: string | null }>(
    sql`SELECT trace_id, root_span_id FROM trace_summaries FINAL WHERE project_id = ${p} AND deleted = 0 AND trace_id IN (${idList(traceIds)})${FINAL_SETTINGS}`,
    opts,
  );
  const keys = roots.filter((r) => r.root_span_id !== null);
  if (!keys.length) return out;
  const spans = await ch.rows<RootCandidate & { trace_id: string; start_ns: string | null; end_ns: string | null }>(
    sql`SELECT trace_id, span_id, parent_span_id, span_name, service_name, start_ns, end_ns
        FROM ${currentSpans(sql`project_id = ${p} AND deleted = 0 AND (trace_id, span_id) IN (${join(keys.map((k) => sql`(${str(k.trace_id)}, ${str(k.root_span_id)})`), ', ')})`)}${FINAL_SETTINGS}`,
    opts,
  );
  for (const s of spans) {
    const root = traceRoot([{ ...s, start_ns: s.start_ns == null ? null : BigInt(s.start_ns), end_ns: s.end_ns == null ? null : BigInt(s.end_ns) }]);
    if (root) out.set(s.trace_id, root);
  }
  return out;
}

/** Every agent and request model of a project (the list's filter choices), sorted. */
export async function facets(ch: ClickHouse, projectId: string, opts: ReadOptions): Promise<{ agent_names: string[]; request_models: string[] }> {
  const p = str(projectId);
  const [agents, models] = await Promise.all([
    ch.rows<{ v: string }>(sql`SELECT DISTINCT arrayJoin(agent_name) AS v FROM project_days FINAL WHERE project_id = ${p} ORDER BY v${FINAL_SETTINGS}`, opts),
    ch.rows<{ v: string }>(sql`SELECT DISTINCT arrayJoin(request_models) AS v FROM project_days FINAL WHERE project_id = ${p} ORDER BY v${FINAL_SETTINGS}`, opts),
  ]);
  return { agent_names: agents.map((r) => r.v), request_models: models.map((r) => r.v) };
}
