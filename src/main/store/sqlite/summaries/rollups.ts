/**
 * Span rollups (migrations 0012, 0020, 0028, 0030) and their per-day layer (0028, decision 0026), maintained
 * inside the write and delete transactions.
 *
 * One rollup row per unit — a conversation, or the conversation-less spans of one trace — per UTC day
 * of the spans' start and per key: the GenAI columns a group-by filters and groups on
 * (agent_name, operation_name, status_code, request_model, provider_name, and since 0030 span_kind and
 * response_model; domain/rollups.ts ROLLUP_KEYS). A row's first/last start tell whether all its spans lie inside a time window.
 *
 * A unit is recomputed whole from its spans whenever a batch or a delete touched one of its traces:
 * one DELETE and one INSERT … SELECT … GROUP BY the keys over the unit's spans (an index seek:
 * spans_project_conversation or spans_key). Nothing is added or subtracted, so re-imports, a span
 * that changed conversation, a counting bit that moved to a late child and deletes stay exact. The
 * derived values are computed with the spans query's own SQL (analytics/columns.ts DERIVED_SQL), so
 * a rollup answer and a scan answer are the same numbers. Cost: a unit is re-read on every batch
 * that touches it — a conversation imported turn by turn is read once per turn (quadratic in its
 * turns; ~20 spans a conversation on the bench, a few milliseconds for a 1,000-turn one).
 *
 * The layer (`span_rollup_days`): one row per (project, day, key combination) summing that day's rollup
 * rows, with the conversations in it as a bitmap of conversation_summaries ids (sqlite/unit-bits.ts).
 * Every (day, key combination) whose rollup rows a unit recompute removed or wrote (the DELETE's and
 * INSERT's RETURNING) is recomputed whole from its rollup rows after the batch's units — only those
 * combinations, not the whole day: a day's recompute re-aggregated every row of the day on every batch,
 * growing with the day through an import (decision 0026 "As built") — again nothing subtracted, so
 * min/max, the lists and the bitmaps stay exact; the conversation ids are read at that moment, after the
 * conversation pass, so a conversation whose summary row was dropped and made again is counted by its
 * new id everywhere it has rows.
 *
 * The name layer (`span_name_days`, migration 0031): the (day, key combination) groups split further by
 * span name and duration bucket, rows only for the groups that split divides (below, NAME_FILL). It is
 * recomputed a whole day at a time from the day's spans (a range of the start index), deferred: every day a
 * write's unit recomputes touched is marked stale (`span_name_stale`) in the write's transaction, readers take
 * a stale day from its spans, and the day is recomputed at a later write that does not touch it (one a
 * write), once it has been stale for a minute and long enough for its size, or at the next open — so the
 * layer's rows, where not stale, are exactly what their spans give, without per-unit rows split by name
 * (1.8× the rollup rows: too many bytes) and without a day's recompute on every batch.
 */
import type { Db } from '../open.js';
import type { FreshTraces } from './types.js';
import { DERIVED_SQL } from '../analytics/columns.js';
import { ROLLUP_KEYS } from '../../../domain/rollups.js';
import { CONVERSATIONS_OF_TRACE_SQL } from './traces.js';

type TraceRef = { project_id: string; trace_id: string };

const CONVERSATION_UNIT = 0;
const TRACE_UNIT = 1;

/** The key columns of a rollup row (domain/rollups.ts ROLLUP_KEYS) and the day split (NULL: no start). */
const KEYS = ROLLUP_KEYS.join(', ');
const SPLIT = `${KEYS}, day`;
const DAY_NS = 86_400_000_000_000;
const DAY_NS_BIG = 86_400_000_000_000n;
/** The UTC day of a start (days since 1970-01-01, floored also before it). */
const DAY_SQL = `CASE WHEN s.start_ns >= 0 THEN s.start_ns / ${DAY_NS} ELSE (s.start_ns + 1) / ${DAY_NS} - 1 END`;
/**
 * A row's distinct agent versions and conversation names, without NULL: a group row lists strings only
 * (spans-group.ts), so '[]' reads as '[null]' did, in 4 bytes less each (history workload, 100k spans: span_rollups
 * 3.18 → 3.11 MB, −0.66 B/span; older rows keep '[null]' until their unit is recomputed).
 */
const AGENT_VERSIONS = 'json_group_array(DISTINCT agent_version) FILTER (WHERE agent_version IS NOT NULL)';
const CONVERSATION_NAMES = 'json_group_array(DISTINCT conversation_name) FILTER (WHERE conversation_name IS NOT NULL)';
const LISTS = `${AGENT_VERSIONS}, ${CONVERSATION_NAMES}`;
/** Aggregates of one unit's spans per key (same derived values as the spans query). */
const AGGREGATES = `${KEYS}, COUNT(*), MIN(start_ns), MAX(start_ns), MAX(end_ns), SUM(CASE WHEN end_ns > start_ns THEN end_ns - start_ns END),
  SUM(dur), COUNT(dur), MIN(dur), MAX(dur),
  SUM(CASE WHEN counted & 1 THEN input_tokens END), SUM(CASE WHEN counted & 1 THEN output_tokens END),
  SUM(CASE WHEN counted & 1 THEN reasoning_tokens END), SUM(CASE WHEN counted & 1 THEN cache_creation_input_tokens END),
  SUM(CASE WHEN counted & 1 THEN cache_read_input_tokens END),
  SUM(tok), COUNT(tok), MIN(tok), MAX(tok),
  SUM(cost), SUM(CASE WHEN counted & 2 THEN input_cost_usd END), SUM(CASE WHEN counted & 2 THEN output_cost_usd END), COUNT(cost), MIN(cost), MAX(cost),
  ${LISTS}, day`;
const COLUMNS = `project_id, unit_kind, unit_id, ${KEYS}, span_count, first_ns, last_ns, last_end_ns, dur_ns,
  dur_ms_sum, dur_ms_n, dur_ms_min, dur_ms_max, in_tok, out_tok, reasoning_tok, cache_creation_tok, cache_read_tok,
  tok_sum, tok_n, tok_min, tok_max, cost, in_cost, out_cost, cost_n, cost_min, cost_max, agent_versions, conversation_names, day`;
/** The layer's columns (span_rollup_days) and their values over a day's rollup rows `r`. */
const DAY_COLUMNS = `project_id, day, ${KEYS}, span_count, first_ns, last_ns, last_end_ns, dur_ns, dur_ms_sum, dur_ms_n, dur_ms_min,
  dur_ms_max, in_tok, out_tok, reasoning_tok, cache_creation_tok, cache_read_tok, tok_sum, tok_n, tok_min, tok_max, cost, in_cost,
  out_cost, cost_n, cost_min, cost_max, agent_versions, conversation_names, units`;
const DAY_GROUP = ROLLUP_KEYS.map((k) => `r.${k}`).join(', ');
const DAY_AGGREGATES = `r.project_id, r.day, ${DAY_GROUP},
  SUM(r.span_count), MIN(r.first_ns), MAX(r.last_ns), MAX(r.last_end_ns), SUM(r.dur_ns), SUM(r.dur_ms_sum), SUM(r.dur_ms_n),
  MIN(r.dur_ms_min), MAX(r.dur_ms_max), SUM(r.in_tok), SUM(r.out_tok), SUM(r.reasoning_tok), SUM(r.cache_creation_tok),
  SUM(r.cache_read_tok), SUM(r.tok_sum), SUM(r.tok_n), MIN(r.tok_min), MAX(r.tok_max), SUM(r.cost), SUM(r.in_cost), SUM(r.out_cost),
  SUM(r.cost_n), MIN(r.cost_min), MAX(r.cost_max), loupe_json_union(r.agent_versions), loupe_json_union(r.conversation_names),
  loupe_units(c.id)`;
/** Rollup rows `r` with the conversation number of conversation units (`c.id`). */
const DAY_SOURCE = `span_rollups r LEFT JOIN conversation_summaries c
  ON r.unit_kind = ${CONVERSATION_UNIT} AND c.project_id = r.project_id AND c.conversation_id = r.unit_id AND c.kind = 'conversation'`;
/**
 * A rollup row's key combination as one value (SQLite's JSON text of the keys, NULLs included):
 * what a unit recompute returns for each row it removed or wrote, and what the layer recompute matches.
 */
const GROUP_OF = (p: string) => `json_array(${KEYS.split(', ').map((k) => p + k).join(', ')})`;
/** The groups given as a JSON array of GROUP_OF texts. */
const IN_GROUPS = 'IN (SELECT value FROM json_each(?))';
/**
 * The spans of a selection with the derived values (`s` as in the spans query). A unit names its
 * index: left to itself the planner read the covering group-by index (dropped in 0013), which held
 * every column needed but was ordered by agent first — a scan of the whole project for every unit
 * (measured: 540 s of a 100k-span import instead of a few); naming it keeps any later index out.
 */
const derived = (where: string, index?: string, more = '') => `SELECT s.*, ${DERIVED_SQL.duration_ms} AS dur, ${DERIVED_SQL.total_tokens} AS tok,
  ${DERIVED_SQL.total_cost_usd} AS cost, ${DAY_SQL} AS day${more} FROM spans s${index ? ` INDEXED BY ${index}` : ''} WHERE ${where}`;

/**
 * The name layer (`span_name_days`, migration 0031): the spans of a day split by the rollup keys, the span
 * name and a duration bucket — but rows only for the (day, key combination) groups that this split divides
 * or whose name is not the conventional one (`conventionalName`): a group whose spans all carry the
 * conventional name and lie in one bucket is its span_rollup_days row, which readers take with that name
 * (analytics/rollups.ts). On the bench's history workload that leaves the tool groups (a name per tool) and
 * the invoke_agent groups across 5 s. Bucket upper bounds in ms (duration_ms ≤ bound), so a bound on one of
 * them splits no row (analytics/rollups.ts decides the others row by row). No bound under 5 s: a 1 s edge
 * splits every chat group (0.3–2.8 s) and a 100 ms edge every tool group (docs/store.md).
 */
export const DUR_BOUNDS_MS = [5_000, 10_000, 30_000, 60_000] as const;
const BUCKET_SQL = `CASE WHEN ${DERIVED_SQL.duration_ms} IS NULL THEN NULL ${DUR_BOUNDS_MS.map((b, i) => `WHEN ${DERIVED_SQL.duration_ms} <= ${b} THEN ${i}`).join(' ')} ELSE ${DUR_BOUNDS_MS.length} END`;
/**
 * The span name GenAI semantic conventions give a span with these keys (`p`: the row's alias and dot, or ''):
 * `invoke_agent {agent}` / `create_agent {agent}`, else `{operation} {request model}` (chat, embeddings, …);
 * NULL when a part is NULL. Only a storage choice: a row holds its name unless it is this one.
 */
export const conventionalName = (p: string): string =>
  `(CASE WHEN ${p}operation_name IN ('invoke_agent', 'create_agent') THEN ${p}operation_name || ' ' || ${p}agent_name ELSE ${p}operation_name || ' ' || ${p}request_model END)`;
/** The name layer's columns and their values over a group of spans (namedSpans), in that order. */
const NAME_VALUES: [string, string][] = [
  ['project_id', 'project_id'], ['day', 'day'], ...ROLLUP_KEYS.map((k): [string, string] => [k, k]),
  ['span_name', `NULLIF(span_name, ${conventionalName('')})`], ['dur_bucket', 'bucket'],
  ['span_count', 'COUNT(*)'], ['first_ns', 'MIN(start_ns)'], ['last_ns', 'MAX(start_ns)'], ['last_end_ns', 'MAX(end_ns)'],
  ['dur_ns', 'SUM(CASE WHEN end_ns > start_ns THEN end_ns - start_ns END)'],
  ['dur_ms_sum', 'SUM(dur)'], ['dur_ms_n', 'COUNT(dur)'], ['dur_ms_min', 'MIN(dur)'], ['dur_ms_max', 'MAX(dur)'],
  ['in_tok', 'SUM(CASE WHEN counted & 1 THEN input_tokens END)'], ['out_tok', 'SUM(CASE WHEN counted & 1 THEN output_tokens END)'],
  ['reasoning_tok', 'SUM(CASE WHEN counted & 1 THEN reasoning_tokens END)'],
  ['cache_creation_tok', 'SUM(CASE WHEN counted & 1 THEN cache_creation_input_tokens END)'],
  ['cache_read_tok', 'SUM(CASE WHEN counted & 1 THEN cache_read_input_tokens END)'],
  ['tok_sum', 'SUM(tok)'], ['tok_n', 'COUNT(tok)'], ['tok_min', 'MIN(tok)'], ['tok_max', 'MAX(tok)'],
  ['cost', 'SUM(cost)'], ['in_cost', 'SUM(CASE WHEN counted & 2 THEN input_cost_usd END)'], ['out_cost', 'SUM(CASE WHEN counted & 2 THEN output_cost_usd END)'],
  ['cost_n', 'COUNT(cost)'], ['cost_min', 'MIN(cost)'], ['cost_max', 'MAX(cost)'],
  ['agent_versions', AGENT_VERSIONS], ['conversation_names', CONVERSATION_NAMES],
  ['units', 'loupe_units(cid)'],
];
/** Spans of a selection with the derived values, their bucket and their conversation's number (`cid`). */
const namedSpans = (where: string, index?: string) => derived(where, index, `, ${BUCKET_SQL} AS bucket,
  (SELECT c.id FROM conversation_summaries c WHERE c.project_id = s.project_id AND c.conversation_id = s.conversation_id AND c.kind = 'conversation') AS cid`);
/**
 * The name layer's rows of a selection of spans: grouped by day, keys, name and bucket, kept for the groups
 * of (day, keys) that this divides (`parts` > 1) or whose one name is not the conventional one.
 */
const NAME_FILL = (where: string, index?: string) => `INSERT INTO span_name_days (${NAME_VALUES.map(([c]) => c).join(', ')})
  SELECT ${NAME_VALUES.map((_, i) => `v${i}`).join(', ')} FROM (
    SELECT ${NAME_VALUES.map(([, v], i) => `${v} AS v${i}`).join(', ')},
      COUNT(*) OVER (PARTITION BY project_id, day, ${KEYS}) AS parts, span_name IS NOT ${conventionalName('')} AS named
    FROM (${namedSpans(where, index)}) GROUP BY project_id, day, ${KEYS}, span_name, bucket)
  WHERE parts > 1 OR named`;

const NAME_REBUILD = [`DELETE FROM span_name_days`, NAME_FILL('1'), `DELETE FROM span_name_stale`];

export const ROLLUP_SQL = {
  removeUnit: `DELETE FROM span_rollups WHERE project_id = ? AND unit_kind = ? AND unit_id = ? RETURNING day, ${GROUP_OF('')} AS grp`,
  conversationUnit: `INSERT INTO span_rollups (${COLUMNS})
    SELECT project_id, ${CONVERSATION_UNIT}, conversation_id, ${AGGREGATES}
    FROM (${derived('s.project_id = ? AND s.conversation_id = ?', 'spans_project_conversation')}) GROUP BY ${SPLIT} RETURNING day, ${GROUP_OF('')} AS grp`,
  traceUnit: `INSERT INTO span_rollups (${COLUMNS})
    SELECT project_id, ${TRACE_UNIT}, trace_id, ${AGGREGATES}
    FROM (${derived('s.project_id = ? AND s.trace_id = ? AND s.conversation_id IS NULL', 'spans_key')}) GROUP BY ${SPLIT} RETURNING day, ${GROUP_OF('')} AS grp`,
  /** Layer rows of some key combinations of a day, each recomputed whole from that day's rollup rows of its keys. */
  removeGroups: `DELETE FROM span_rollup_days WHERE project_id = ? AND day IS ? AND ${GROUP_OF('')} ${IN_GROUPS}`,
  addGroups: `INSERT INTO span_rollup_days (${DAY_COLUMNS})
    SELECT ${DAY_AGGREGATES} FROM ${DAY_SOURCE} WHERE r.project_id = ? AND r.day IS ? AND ${GROUP_OF('r.')} ${IN_GROUPS} GROUP BY ${DAY_GROUP}`,
  /** Conversations of a trace's spans as stored now (after the batch's upserts). */
  // INDEXED BY: the planner otherwise walks spans_project_conversation over the whole project.
  conversationsNow: `SELECT DISTINCT conversation_id FROM spans INDEXED BY spans_key WHERE project_id = ? AND trace_id = ? AND conversation_id IS NOT NULL`,
  /** Conversations of a trace before the batch (its turn rows, rewritten by the trace pass after this). */
  conversationsBefore: CONVERSATIONS_OF_TRACE_SQL,
  rebuild: [
    `DELETE FROM span_rollups`,
    `INSERT INTO span_rollups (${COLUMNS})
      SELECT project_id, ${CONVERSATION_UNIT}, conversation_id, ${AGGREGATES}
      FROM (${derived('s.conversation_id IS NOT NULL')}) GROUP BY project_id, conversation_id, ${SPLIT}`,
    `INSERT INTO span_rollups (${COLUMNS})
      SELECT project_id, ${TRACE_UNIT}, trace_id, ${AGGREGATES}
      FROM (${derived('s.conversation_id IS NULL')}) GROUP BY project_id, trace_id, ${SPLIT}`,
    `DELETE FROM span_rollup_days`,
    `INSERT INTO span_rollup_days (${DAY_COLUMNS}) SELECT ${DAY_AGGREGATES} FROM ${DAY_SOURCE} GROUP BY r.project_id, r.day, ${DAY_GROUP}`,
    ...NAME_REBUILD,
    `DELETE FROM summary_backfill WHERE name IN ('rollups', 'name_days')`,
  ],
  /** A day's name-layer rows, recomputed from its spans (a range of the start index; NULL: spans without a start). */
  removeNameDay: `DELETE FROM span_name_days WHERE project_id = ? AND day IS ?`,
  fillNameDay: NAME_FILL('s.project_id = ? AND s.start_ns >= ? AND s.start_ns < ?', 'spans_project_start'),
  fillNameNullDay: NAME_FILL('s.project_id = ? AND s.start_ns IS NULL', 'spans_project_start'),
  staleDays: `SELECT project_id, day, since_ms FROM span_name_stale ORDER BY since_ms`,
  daySpans: `SELECT SUM(span_count) FROM span_rollup_days WHERE project_id = ? AND day IS ?`,
  isStale: `SELECT 1 FROM span_name_stale WHERE project_id = ? AND day IS ?`,
  markStale: `INSERT INTO span_name_stale (project_id, day, since_ms) VALUES (?, ?, ?)`,
  unstale: `DELETE FROM span_name_stale WHERE project_id = ? AND day IS ?`,
  /** The name layer alone from all spans (migration 0031). */
  nameRebuild: [...NAME_REBUILD, `DELETE FROM summary_backfill WHERE name = 'name_days'`],
} as const;

const pending = (db: Db, name: 'rollups' | 'name_days'): boolean => !db.readonly && !!db.prepare('SELECT 1 FROM summary_backfill WHERE name = ?').get(name);
/** True when the store's rollups must be rebuilt from all spans (migration 0012 or 0020 on a store with spans). */
export const rollupsPending = (db: Db): boolean => pending(db, 'rollups');
/** True when the name layer must be filled from all spans (migration 0031 on a store with spans). */
export const namesPending = (db: Db): boolean => pending(db, 'name_days');

export interface SpanRollups {
  /**
   * The units the traces belonged to before a change: read (call before the trace pass), or with `known` (the trace
   * pass's `before`: the conversations of each trace that had a trace row) taken from it — a trace without a row
   * had no conversations, so nothing is read for the traces first seen in a batch.
   */
  unitsBefore(traces: Iterable<TraceRef>, known?: ReadonlyMap<string, readonly string[]>): Set<string>;
  /**
   * Recomputes the units of these traces, now, plus `before` (call after the trace pass). A trace of
   * `fresh` (first seen in the batch: all its spans are the batch's, none stored before) has its units
   * from those spans: its conversations, and its own unit only when a span of it has none — every
   * other trace's conversations are read back and its own unit recomputed, rows or not.
   */
  recompute(traces: Iterable<TraceRef>, before: Set<string>, fresh?: FreshTraces): void;
  /** Every unit from all spans (at open, after the migration or a summary backfill). */
  rebuild(): void;
  /** The name layer alone from all spans (at open, after migration 0031). */
  rebuildNames(): void;
  /**
   * Recomputes stale days of the name layer from their spans, oldest first: one a write — a day `touched` (a set
   * of `project\0day`: this write's days) does not hold, or one it holds that has been stale for longer than
   * STALE_MAX_MS and than STALE_MS_PER_SPAN per span of the day (so a day that grows through a long import is
   * recomputed at most every so often, ~5 % of the writer's time) — or, with `all` (at open), every one until
   * `budgetMs` have passed (the rest at later writes; readers take them from their spans meanwhile). Returns how many.
   */
  cleanStale(touched?: Set<string>, all?: boolean, budgetMs?: number): number;
  /**
   * Bulk path (write-side.ts, several batches in one transaction): the layer rows of what `recompute` touches are
   * recomputed once at `flushLayer` instead of after each batch — each is recomputed whole from its rollup rows, so
   * the rows are those the per-batch recomputes end with. `flushLayer(false)`: the transaction rolled back, nothing to do.
   */
  deferLayer(): void;
  flushLayer(apply?: boolean): void;
}

/** The longest a day stays stale while writes keep touching it (it is then recomputed at the next write). */
export const STALE_MAX_MS = 60_000;
/** A touched day is recomputed no more often than this per span of it (its recompute: ~5 µs a span). */
const STALE_MS_PER_SPAN = 0.1;

const unitKey = (projectId: string, kind: number, id: string) => `${projectId}\u0000${kind}\u0000${id}`;

export function createSpanRollups(db: Db): SpanRollups {
  const remove = db.prepare(ROLLUP_SQL.removeUnit);
  const addConversation = db.prepare(ROLLUP_SQL.conversationUnit);
  const addTrace = db.prepare(ROLLUP_SQL.traceUnit);
  const removeGroups = db.prepare(ROLLUP_SQL.removeGroups);
  const addGroups = db.prepare(ROLLUP_SQL.addGroups);
  const now = db.prepare(ROLLUP_SQL.conversationsNow).pluck();
  const removeNameDay = db.prepare(ROLLUP_SQL.removeNameDay);
  const fillNameDay = db.prepare(ROLLUP_SQL.fillNameDay);
  const fillNameNullDay = db.prepare(ROLLUP_SQL.fillNameNullDay);
  const staleDays = db.prepare(ROLLUP_SQL.staleDays).safeIntegers();
  const isStale = db.prepare(ROLLUP_SQL.isStale).pluck();
  const markStale = db.prepare(ROLLUP_SQL.markStale);
  const unstale = db.prepare(ROLLUP_SQL.unstale);
  const daySpans = db.prepare(ROLLUP_SQL.daySpans).pluck();
  const dayKey = (projectId: string, day: number | bigint | null) => `${projectId}\u0000${day}`;
  /** Recomputes one day's name-layer rows from its spans and takes it off the stale list. */
  const refillDay = (projectId: string, day: bigint | null) => {
    removeNameDay.run(projectId, day);
    if (day === null) fillNameNullDay.run(projectId);
    else fillNameDay.run(projectId, day * DAY_NS_BIG, (day + 1n) * DAY_NS_BIG);
    unstale.run(projectId, day);
  };
  const before = db.prepare(ROLLUP_SQL.conversationsBefore).pluck();
  const unitsOf = (t: TraceRef, conversations: readonly string[], into: Set<string>) => {
    into.add(unitKey(t.project_id, TRACE_UNIT, t.trace_id));
    for (const c of conversations) into.add(unitKey(t.project_id, CONVERSATION_UNIT, c));
  };
  // The bulk path's layer groups, kept until flushLayer (null: recomputed after each batch).
  let deferred: Map<string, { projectId: string; day: number | null; groups: Set<string> }> | null = null;
  const rollups: SpanRollups = {
    unitsBefore(traces, known) {
      const units = new Set<string>();
      for (const t of traces) unitsOf(t, known ? (known.get(`${t.project_id}\u0000${t.trace_id}`) ?? []) : (before.all(t.project_id, t.trace_id) as string[]), units);
      return units;
    },
    recompute(traces, earlier, fresh) {
      const units = new Set(earlier);
      for (const t of traces) {
        const spans = fresh?.get(`${t.project_id}\u0000${t.trace_id}`);
        if (!spans) {
          unitsOf(t, now.all(t.project_id, t.trace_id) as string[], units);
          continue;
        }
        // Nothing of a fresh trace was stored before, so its own unit had no rows (`earlier` holds it
        // only because unitsBefore cannot tell): recomputed only when a span of it has no conversation.
        // On the history workload that skips two empty statements and a read per trace (~4 spans).
        let own = false;
        for (const s of spans) {
          if (s.conversation_id == null) own = true;
          else units.add(unitKey(t.project_id, CONVERSATION_UNIT, s.conversation_id));
        }
        if (!own) units.delete(unitKey(t.project_id, TRACE_UNIT, t.trace_id));
        else units.add(unitKey(t.project_id, TRACE_UNIT, t.trace_id));
      }
      // The (day, key combination) groups each unit had rows in before and has now: their layer rows
      // are recomputed after, each whole from its rollup rows (the rest of the day is unchanged).
      const days = new Map<string, { projectId: string; day: number | null; groups: Set<string> }>();
      const touched = (projectId: string, rows: { day: number | null; grp: string }[]) => {
        for (const { day, grp } of rows) {
          const key = `${projectId}\u0000${day}`;
          let d = days.get(key);
          if (!d) days.set(key, (d = { projectId, day, groups: new Set() }));
          d.groups.add(grp);
        }
      };
      for (const key of units) {
        const [projectId, kind, id] = key.split('\u0000') as [string, string, string];
        touched(projectId, remove.all(projectId, Number(kind), id) as { day: number | null; grp: string }[]);
        touched(projectId, (Number(kind) === CONVERSATION_UNIT ? addConversation : addTrace).all(projectId, id) as { day: number | null; grp: string }[]);
      }
      if (deferred) {
        for (const [k, d] of days) {
          const kept = deferred.get(k);
          if (!kept) deferred.set(k, d);
          else for (const g of d.groups) kept.groups.add(g);
        }
        return;
      }
      layer(days);
    },
    deferLayer() {
      deferred ??= new Map();
    },
    flushLayer(apply = true) {
      const days = deferred;
      deferred = null;
      if (apply && days?.size) layer(days);
    },
    rebuild() {
      for (const sql of ROLLUP_SQL.rebuild) db.prepare(sql).run();
    },
    rebuildNames() {
      for (const sql of ROLLUP_SQL.nameRebuild) db.prepare(sql).run();
    },
    cleanStale(touched, all = false, budgetMs = Infinity) {
      return cleanStale(touched, all, budgetMs);
    },
  };
  /** The layer rows of the touched (day, key combination) groups, each recomputed whole from its rollup rows. */
  function layer(days: Map<string, { projectId: string; day: number | null; groups: Set<string> }>): void {
      const stamp = Date.now();
      const touchedDays = new Set<string>();
      for (const { projectId, day, groups } of days.values()) {
        const list = JSON.stringify([...groups]);
        removeGroups.run(projectId, day, list);
        addGroups.run(projectId, day, list);
        // The day's spans changed: its name-layer rows are recomputed later, read from its spans until then.
        touchedDays.add(dayKey(projectId, day));
        if (!isStale.get(projectId, day)) markStale.run(projectId, day, stamp);
      }
      rollups.cleanStale(touchedDays);
  }
  function cleanStale(touched?: Set<string>, all = false, budgetMs = Infinity): number {
      const stamp = Date.now();
      let n = 0;
      for (const r of staleDays.all() as { project_id: string; day: bigint | null; since_ms: bigint }[]) {
        if (all ? Date.now() - stamp > budgetMs : n >= 1) break;
        if (!all && touched?.has(dayKey(r.project_id, r.day))) {
          const age = stamp - Number(r.since_ms);
          if (age < STALE_MAX_MS || age < Number(daySpans.get(r.project_id, r.day) ?? 0) * STALE_MS_PER_SPAN) continue;
        }
        refillDay(r.project_id, r.day);
        n++;
      }
      return n;
  }
  return rollups;
}
