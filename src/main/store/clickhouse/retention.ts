/**
 * Deleting spans on ClickHouse (retention and `spans.delete`), keeping every summary exact. Always
 * whole traces, chosen from trace_summaries.
 *
 *  - A day whose spans all go (an age cut over every project) is dropped as a partition of both span
 *    tables: instant, and its disk space is back at once.
 *  - The other doomed spans, and the doomed traces' summary rows, get tombstones: a newer version of
 *    each key with `deleted = 1`, written by the server itself (INSERT … SELECT over the selection, no
 *    rows travel); readers already skip them. Every conversation the traces fed is then recomputed
 *    from its remaining turns (writer.ts).
 *  - Tombstones are purged right after: the touched partitions are merged (OPTIMIZE … FINAL, which
 *    keeps only each key's newest row, the tombstone) and then the tombstones deleted (a mutation).
 *    Deleting a tombstone before its older versions are merged away would bring them back; merging
 *    first makes the order safe. The disk space of a delete is back when the call returns.
 *
 * A whole project goes by mutation (ALTER … DELETE WHERE project_id = …) on every table.
 */
import type { DeleteResult, DeleteSelection } from '../ports.js';
import type { ClickHouse } from './connection.js';
import { traceIn } from './reads/keys.js';
import { FINAL_SETTINGS } from './reads/scope.js';
import { storageStats } from './reads/housekeeping.js';
import { date, i64, ident, join, raw, sql, str, u64, type Sql } from './sql.js';
import { nextStamp, type DayWindow, type Writer } from './writer.js';
import { daysBetween } from './encode.js';

const SPAN_TABLES = ['spans', 'span_payloads'] as const;
const SUMMARY_TABLES = ['trace_summaries', 'conversation_turns', 'agent_trace_stats', 'conversation_summaries', 'conversation_rows', 'trace_keys', 'conversation_keys', 'thread_turns'] as const;
/** The term index (migration 0009), partitioned by the spans' days like them. */
const SEARCH_TABLES = ['search_terms', 'search_docs'] as const;
const ALL_TABLES = [...SPAN_TABLES, ...SUMMARY_TABLES, ...SEARCH_TABLES, 'span_rollups', 'unit_days', 'rollup_days', 'project_days', 'trace_days', 'day_writes', 'thread_ends', 'resources', 'write_journal', 'scores', 'score_group_turns'] as const;
const CHUNK = 2_000;

export async function deleteSpans(ch: ClickHouse, writer: Writer, sel: DeleteSelection): Promise<DeleteResult> {
  if (sel.kind === 'project') return deleteProject(ch, sel.project_id);
  let cond: Sql;
  if (sel.kind === 'traces') {
    cond = sel.trace_ids.length ? sql`project_id = ${str(sel.project_id)} AND ${traceIn(sel.trace_ids)}` : raw('0');
  } else if (sel.kind === 'older_than') {
    cond = sql`${sel.project_id === null ? raw('1') : sql`project_id = ${str(sel.project_id)}`} AND ifNull(last_start_ns, 0) < ${i64(sel.before_ns)}`;
  } else {
    const cut = await sizeCutoff(ch, sel.max_bytes);
    cond = cut === null ? raw('0') : sql`ifNull(last_start_ns, 0) < ${i64(cut)}`;
  }
  // The selection, fixed once: later steps tombstone what it names, so it must not be re-evaluated.
  const doomed = await ch.rows<{ project_id: string; trace_id: string; span_count: string; first_day: string; last_day: string }>(
    sql`SELECT project_id, trace_id, span_count, first_day, last_day FROM trace_summaries FINAL WHERE deleted = 0 AND ${cond}${FINAL_SETTINGS}`,
  );
  const done = async (): Promise<DeleteResult> => ({
    deleted_spans: doomed.reduce((a, d) => a + Number(d.span_count), 0),
    deleted_traces: doomed.length,
    projects: [...new Set(doomed.map((d) => d.project_id))].sort(),
    store_bytes: (await storageStats(ch, {})).total_bytes,
  });
  if (!doomed.length) return done();
  // Writers updating these days' rows from contributions see the delete's window and recompute instead (writer.keepDays).
  const windows: DayWindow[] = [];
  for (const project of new Set(doomed.map((d) => d.project_id))) {
    windows.push(await writer.openWindow(project, doomed.filter((d) => d.project_id === project).flatMap((d) => daysBetween(d.first_day, d.last_day)), false));
  }
  const version = i64(nextStamp());

  const dropped = new Set<string>();
  if (sel.kind !== 'traces' && (sel.kind === 'size_cap' || sel.project_id === null)) {
    for (const day of await droppableDays(ch, cond)) {
      for (const t of [...SPAN_TABLES, ...SEARCH_TABLES]) await ch.command(sql`ALTER TABLE ${ident(t)} DROP PARTITION ${date(day)}`);
      dropped.add(day);
    }
  }

  const touchedDays = new Set<string>();
  const byProject = new Map<string, typeof doomed>();
  for (const d of doomed) {
    byProject.set(d.project_id, [...(byProject.get(d.project_id) ?? []), d]);
    for (const day of daysBetween(d.first_day, d.last_day)) if (!dropped.has(day)) touchedDays.add(day);
  }
  const docs: { project: string; doc: string }[] = [];
  for (const [project, list] of byProject) {
    for (let i = 0; i < list.length; i += CHUNK) {
      const chunk = list.slice(i, i + CHUNK);
      const where = sql`project_id = ${str(project)} AND ${traceIn(chunk.map((d) => d.trace_id))} AND deleted = 0`;
      const days = [...new Set(chunk.flatMap((d) => daysBetween(d.first_day, d.last_day)))].filter((d) => !dropped.has(d));
      if (days.length) {
        await writer.markDirty(days);
        const inDays = sql`day IN (${join(days.map((d) => sql`${date(d)}`), ', ')})`;
        for (const t of SPAN_TABLES) {
          await ch.command(
            sql`INSERT INTO ${ident(t)} (day, project_id, trace_id, span_id, version, deleted)
                SELECT day, project_id, trace_id, span_id, ${version}, 1 FROM ${ident(t)} FINAL WHERE ${inDays} AND ${where}${FINAL_SETTINGS}`,
          );
        }
      }
      const conversations = await ch.rows<{ conversation_id: string }>(
        sql`SELECT DISTINCT conversation_id FROM conversation_turns FINAL WHERE ${where}${FINAL_SETTINGS}`,
      );
      await ch.command(
        sql`INSERT INTO conversation_turns (project_id, conversation_id, trace_id, version, deleted)
            SELECT project_id, conversation_id, trace_id, ${version}, 1 FROM conversation_turns FINAL WHERE ${where}${FINAL_SETTINGS}`,
      );
      await ch.command(
        sql`INSERT INTO agent_trace_stats (project_id, trace_id, agent_name, version, deleted)
            SELECT project_id, trace_id, agent_name, ${version}, 1 FROM agent_trace_stats FINAL WHERE ${where}${FINAL_SETTINGS}`,
      );
      await ch.command(
        sql`INSERT INTO conversation_keys (project_id, conversation_id, trace_id, first_day, last_day, version, deleted)
            SELECT project_id, conversation_id, trace_id, first_day, last_day, ${version}, 1 FROM conversation_keys FINAL WHERE ${where}${FINAL_SETTINGS}`,
      );
      // The traces' documents of the term index; a document no trace maps any more loses its terms (purge).
      for (const r of await ch.rows<{ d: string }>(sql`SELECT DISTINCT toString(doc) AS d FROM search_docs FINAL WHERE ${where}${FINAL_SETTINGS}`)) {
        docs.push({ project, doc: r.d });
      }
      await ch.command(
        sql`INSERT INTO search_docs (day, project_id, doc, trace_id, version, deleted)
            SELECT day, project_id, doc, trace_id, ${version}, 1 FROM search_docs FINAL WHERE ${where}${FINAL_SETTINGS}`,
      );
      // The traces' scores (issue 20): span and turn scores go with their trace.
      await ch.command(
        sql`INSERT INTO scores (project_id, score_id, version, deleted)
            SELECT project_id, score_id, ${version}, 1 FROM scores FINAL WHERE ${where}`,
      );
      // ... and so do their turns' places in the score groups (migration 0008; conversation scores stay).
      await ch.command(
        sql`INSERT INTO score_group_turns (project_id, kind, key, turn, trace_id, version, deleted)
            SELECT project_id, kind, key, turn, trace_id, ${version}, 1 FROM score_group_turns FINAL WHERE ${where}`,
      );
      // Their contributions to the day rows (migration 0014): empty, so a later re-import starts from nothing.
      await ch.command(
        sql`INSERT INTO trace_days (project_id, day, trace_id, version)
            SELECT project_id, day, trace_id, ${version} FROM trace_days FINAL WHERE project_id = ${str(project)} AND ${traceIn(chunk.map((d) => d.trace_id))} AND span_count > 0${FINAL_SETTINGS}`,
      );
      for (const t of ['trace_summaries', 'trace_keys'] as const) {
        await ch.command(
          sql`INSERT INTO ${ident(t)} (project_id, trace_id, first_day, last_day, version, deleted)
              SELECT project_id, trace_id, first_day, last_day, ${version}, 1 FROM ${ident(t)} FINAL WHERE ${where}${FINAL_SETTINGS}`,
        );
      }
      const ids = conversations.map((c) => c.conversation_id);
      const convTraces = ids.length ? await writer.summarizeConversations(project, ids) : new Map<string, string[]>();
      // The deleted traces' own units: an empty row each (dropped with the tombstones below).
      await writer.rollup(project, new Map(), ids, convTraces, chunk.map((d) => d.trace_id), chunk.flatMap((d) => daysBetween(d.first_day, d.last_day)));
    }
    // The project's kept day rows of every day its deleted traces had spans in (dropped days too).
    await writer.keepDays(project, list.flatMap((d) => daysBetween(d.first_day, d.last_day)));
  }
  for (const w of windows) await writer.closeWindow(w);
  await purgeTombstones(ch, [...touchedDays]);
  await dropOrphanTerms(ch, docs);
  await writer.cleanDirtyDays(0);
  return done();
}


/**
 * Days that hold no span of a surviving trace (one outside the selection reaching into the day):
 * every span stored in such a day is doomed, so the day can go as a whole partition.
 */
async function droppableDays(ch: ClickHouse, doomedCond: Sql): Promise<string[]> {
  const rows = await ch.rows<{ day: string }>(
    sql`SELECT DISTINCT toDate(partition) AS day FROM system.parts WHERE database = ${str(ch.config.database)} AND table = 'spans' AND active
        AND toDate(partition) IN (SELECT arrayJoin(arrayMap(d -> first_day + d, range(toUInt32(last_day - first_day + 1))))
                                  FROM trace_summaries FINAL WHERE deleted = 0 AND ${doomedCond})
        AND toDate(partition) NOT IN (SELECT arrayJoin(arrayMap(d -> first_day + d, range(toUInt32(last_day - first_day + 1))))
                                      FROM trace_summaries FINAL WHERE deleted = 0 AND NOT (${doomedCond}))
        ORDER BY day${FINAL_SETTINGS}`,
  );
  return rows.map((r) => r.day);
}

/** Merges the touched partitions (so each key keeps only its newest row), then deletes the tombstones and empty rollup rows. */
async function purgeTombstones(ch: ClickHouse, days: string[]): Promise<void> {
  for (const day of days.sort()) for (const t of SPAN_TABLES) await ch.command(sql`OPTIMIZE TABLE ${ident(t)} PARTITION ${date(day)} FINAL`);
  for (const t of SUMMARY_TABLES) await ch.command(sql`OPTIMIZE TABLE ${ident(t)} FINAL`);
  await ch.command(raw('OPTIMIZE TABLE search_docs FINAL'));
  for (const t of [...SPAN_TABLES, ...SUMMARY_TABLES, 'search_docs']) await ch.command(sql`ALTER TABLE ${ident(t)} DELETE WHERE deleted = 1`);
  // A rollup unit with no span left is an empty row (rollups.ts): merged to its newest row, dropped.
  await ch.command(raw('OPTIMIZE TABLE span_rollups FINAL'));
  await ch.command(raw('ALTER TABLE span_rollups DELETE WHERE empty(agent_name)'));
  // So is a unit's day row (unit_days, migration 0015).
  await ch.command(raw('OPTIMIZE TABLE unit_days FINAL'));
  await ch.command(raw('ALTER TABLE unit_days DELETE WHERE empty(agent_name)'));
  await waitForMutations(ch);
}

/** Deletes the terms of the documents (of deleted traces) that no trace maps any more (after the purge). */
async function dropOrphanTerms(ch: ClickHouse, docs: { project: string; doc: string }[]): Promise<void> {
  const byProject = new Map<string, string[]>();
  for (const d of docs) byProject.set(d.project, [...(byProject.get(d.project) ?? []), d.doc]);
  for (const [project, all] of byProject) {
    for (let i = 0; i < all.length; i += CHUNK) {
      const list = join(all.slice(i, i + CHUNK).map((d) => sql`${u64(BigInt(d))}`), ', ');
      const mapped = new Set(
        (await ch.rows<{ d: string }>(sql`SELECT DISTINCT toString(doc) AS d FROM search_docs FINAL WHERE project_id = ${str(project)} AND doc IN (${list}) AND deleted = 0${FINAL_SETTINGS}`)).map((r) => r.d),
      );
      const orphans = all.slice(i, i + CHUNK).filter((d) => !mapped.has(d));
      if (orphans.length) {
        await ch.command(sql`ALTER TABLE search_terms DELETE WHERE project_id = ${str(project)} AND doc IN (${join(orphans.map((d) => sql`${u64(BigInt(d))}`), ', ')})`);
      }
    }
  }
  if (docs.length) await waitForMutations(ch);
}

/** The start time before which the oldest traces hold the excess over `maxBytes` (by average bytes per span). */
async function sizeCutoff(ch: ClickHouse, maxBytes: number): Promise<bigint | null> {
  const stats = await storageStats(ch, {});
  const spans = stats.projects.reduce((a, p) => a + p.span_count, 0);
  if (stats.total_bytes <= maxBytes || !spans) return null;
  const excess = Math.ceil(((stats.total_bytes - maxBytes) / stats.total_bytes) * spans);
  // Per day first (few rows), then the traces of the day where the running sum crosses the excess.
  const days = await ch.rows<{ d: string; n: string }>(
    sql`SELECT toDate(intDiv(ifNull(last_start_ns, 0), 1000000000)) AS d, sum(span_count) AS n FROM trace_summaries FINAL
        WHERE deleted = 0 GROUP BY d ORDER BY d${FINAL_SETTINGS}`,
  );
  let sum = 0;
  for (const day of days) {
    if (sum + Number(day.n) < excess) {
      sum += Number(day.n);
      continue;
    }
    const traces = await ch.rows<{ last: string; n: string }>(
      sql`SELECT ifNull(last_start_ns, 0) AS last, span_count AS n FROM trace_summaries FINAL
          WHERE deleted = 0 AND toDate(intDiv(ifNull(last_start_ns, 0), 1000000000)) = ${date(day.d)} ORDER BY last${FINAL_SETTINGS}`,
    );
    for (const t of traces) {
      sum += Number(t.n);
      if (sum >= excess) return BigInt(t.last) + 1n;
    }
  }
  return null;
}

async function deleteProject(ch: ClickHouse, projectId: string): Promise<DeleteResult> {
  const counts = await ch.rows<{ spans: string; traces: string }>(
    sql`SELECT sum(span_count) AS spans, count() AS traces FROM trace_summaries FINAL WHERE project_id = ${str(projectId)} AND deleted = 0${FINAL_SETTINGS}`,
  );
  for (const t of ALL_TABLES) await ch.command(sql`ALTER TABLE ${ident(t)} DELETE WHERE project_id = ${str(projectId)}`);
  await waitForMutations(ch);
  const spans = Number(counts[0]?.spans ?? 0);
  return { deleted_spans: spans, deleted_traces: Number(counts[0]?.traces ?? 0), projects: spans ? [projectId] : [], store_bytes: (await storageStats(ch, {})).total_bytes };
}

/** Waits (bounded) until the database's mutations are done, so the space they free shows in the figures. */
export async function waitForMutations(ch: ClickHouse, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM system.mutations WHERE database = ${str(ch.config.database)} AND is_done = 0`);
    if (Number(r[0]?.n ?? 0) === 0 || Date.now() > deadline) return;
    await new Promise((res) => setTimeout(res, 100));
  }
}
