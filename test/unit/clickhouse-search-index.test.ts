/**
 * The ClickHouse term index of the search of what was said (issue 19; migration 0009,
 * store/clickhouse/search-index.ts, reads/matches.ts), on a private server of this file (its query log
 * must hold this file's statements only):
 *
 *  - A search reads the granules of its needle's terms and its candidates' rows, never the payloads
 *    or the spans of the store (system.query_log's read_rows per statement).
 *  - A store written before the index (spans, no terms) answers by a scan until its backfill is done,
 *    then through the index: the same conversations and hits either way.
 *  - Deleting traces removes them from the index (their document rows, and the terms of documents no
 *    trace maps any more); a retention that drops whole days drops the index's days too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import type { ConversationsPlan, SpansListPlan } from '../../src/main/domain/plans.js';
import { openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import type { ClickHouse } from '../../src/main/store/clickhouse/connection.js';
import { encodeSpans, SPAN_COLUMNS } from '../../src/main/store/clickhouse/encode.js';
import { setVersion } from '../../src/main/store/clickhouse/row-binary.js';
import { migrateClickHouse } from '../../src/main/store/clickhouse/migrate.js';
import { chMigrations } from '../../src/main/store/clickhouse/migrations/index.js';
import { ident, join, raw, sql, str, u64, type Sql } from '../../src/main/store/clickhouse/sql.js';
import { gatherBound } from '../../src/main/store/clickhouse/reads/matches.js';
import { GATHER_DOCS } from '../../src/main/domain/gather-bound.js';
import { needleTerms } from '../../src/main/domain/search-terms.js';
import { startClickHouse, stopClickHouse, clickhouseMissing, type ClickHouseServer, withConnection as withConnectionTo } from '../helpers/clickhouse-server.js';

const P = 'bench/genai';
const DAY_NS = 86_400_000_000_000n;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chsearch-'));
let server: ClickHouseServer;
const background: SpanRecord[] = [];
const opened: ClickHouseTraceStore[] = [];

beforeAll(async () => {
  const missing = clickhouseMissing();
  if (missing) throw new Error(missing);
  server = await startClickHouse({ dir: path.join(dir, 'server') });
  const file = path.join(dir, 'background.jsonl');
  await generateJsonl(file, { conversations: 150, agents: 4, minSpans: 3000, seed: 5 });
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, { span: (s) => background.push(s), skip: () => {} });
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  if (server) await stopClickHouse(server, { removeDir: true });
  fs.rmSync(dir, { recursive: true, force: true });
}, 300_000);

const urlOf = (db: string) => `clickhouse://default@127.0.0.1:${server.httpPort}/${db}`;

async function open(db: string): Promise<ClickHouseTraceStore> {
  const s = await openClickHouseTraceStore(urlOf(db));
  opened.push(s);
  return s;
}

const withConnection = <T>(db: string, fn: (ch: ClickHouse) => Promise<T>): Promise<T> => withConnectionTo(urlOf(db), fn);

async function writeAll(store: ClickHouseTraceStore, spans: SpanRecord[]): Promise<void> {
  for (let i = 0; i < spans.length; i += 1500) await store.writeSpans(spans.slice(i, i + 1500));
}

const plan = (search: string): ConversationsPlan => ({
  project_id: P, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search,
  sort: [{ field: 'last_activity', direction: 'desc' }], limit: 200, offset: 0, after: null,
});

/** A conversation's answer and hits for a needle, as compared between the index and the scan. */
async function answer(store: ClickHouseTraceStore, needle: string) {
  const page = await store.conversations(plan(needle));
  const hits = await store.search({ project_id: P, text: needle, limit: 50 });
  return { total: page.total_count, rows: page.conversations.map((c) => [c.kind, c.conversation_id, c.snippet]), hits };
}

/** Order ids A-1200..A-1299 (bench/lib/generate.ts): 9 of the background's 158 list rows, 14 candidate documents. */
const NEEDLE_FEW = 'A-12';

const said = (word: string) => `The parcel went by ${word} yesterday.`;

/** The first turn of the background moved to a new conversation `days` later, one answer saying `word`. */
function probe(word: string, days: bigint, tag: string): SpanRecord[] {
  const first = background.filter((s) => s.trace_id === background[0]!.trace_id);
  return first.map((s) => ({
    ...s,
    trace_id: `${tag}${s.trace_id.slice(tag.length)}`,
    conversation_id: `${tag}-conversation`,
    start_ns: s.start_ns! + days * DAY_NS,
    end_ns: s.end_ns === null ? null : s.end_ns + days * DAY_NS,
    output_messages: s.output_messages.length ? [{ role: 'assistant', content: said(word), finish_reason: 'stop', parts: [{ type: 'text', content: said(word) }] }] : s.output_messages,
  }));
}

const backfillState = (ch: ClickHouse) => ch.rows<{ done: number }>(raw("SELECT done FROM search_backfill FINAL WHERE name = 'terms'"));
const count = async (ch: ClickHouse, q: Sql) => Number((await ch.rows<{ n: string }>(q))[0]!.n);

describe('ClickHouse search through the term index', () => {
  it('a search reads its terms\' granules and its candidates, not the payloads or the spans of the store', async () => {
    const store = await open('cost');
    await writeAll(store, background);
    const spans = probe('hovercraft', 40n, 'probe');
    await writeAll(store, spans);
    // One part per partition (a merged store), so each read's granules are known.
    const parts = await withConnection('cost', async (ch) => {
      for (const t of ['spans', 'span_payloads', 'search_terms', 'search_docs']) await ch.command(sql`OPTIMIZE TABLE ${ident(t)} FINAL`);
      await ch.command(raw('SYSTEM FLUSH LOGS'));
      expect(await backfillState(ch)).toEqual([{ done: 1 }]); // a new database has nothing to backfill
      return {
        spans: await count(ch, raw('SELECT count() AS n FROM spans')),
        payloads: await count(ch, raw('SELECT count() AS n FROM span_payloads')),
        terms: await count(ch, raw('SELECT count() AS n FROM search_terms')),
        since: (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t,
      };
    });
    expect(parts.spans).toBeGreaterThan(3000);
    await new Promise((r) => setTimeout(r, 1100)); // query_log's event_time has whole seconds
    const got = await answer(store, 'HOVERCRAFT');
    expect(got.rows.map((r) => r[1])).toEqual(['probe-conversation']);
    expect(got.hits.length).toBeGreaterThan(0);
    expect(new Set(got.hits.map((h) => h.trace_id))).toEqual(new Set([spans[0]!.trace_id]));
    const statements = await withConnection('cost', async (ch) => {
      await ch.command(raw('SYSTEM FLUSH LOGS'));
      const rows = await ch.rows<{ query: string; read_rows: string; result_rows: string }>(
        sql`SELECT query, read_rows, result_rows FROM system.query_log WHERE type = 2 AND event_time > toDateTime(${str(parts.since)})
            AND query NOT LIKE '%system.%' AND query NOT LIKE 'SYSTEM%' ORDER BY event_time`,
      );
      return rows.map((r) => ({ statement: r.query.replace(/\s+/g, ' ').slice(0, 240), read_rows: Number(r.read_rows), result_rows: Number(r.result_rows) }));
    });
    const all = JSON.stringify(statements);
    // The list's and the search's lookups: documents by term (in windows of days, newest first: a
    // statement per window until the needle's documents are all found), then their traces. (18.16 leaves
    // an IN subquery's rows out of read_rows: each is its own statement.)
    const termReads = statements.filter((s) => s.statement.includes('FROM search_terms'));
    const docReads = statements.filter((s) => s.statement.includes('FROM search_docs'));
    expect(termReads.length, all).toBeGreaterThanOrEqual(2);
    expect(docReads.length, all).toBe(2);
    // 'hovercraft' has 8 trigrams: at most a 1,024-row granule each in the one part of the store's
    // days and the probe's; the store holds over four times that (one document per conversation).
    const termBound = 8 * 2 * 1024;
    for (const s of termReads) expect(s.read_rows, all).toBeLessThanOrEqual(termBound);
    expect(parts.terms).toBeGreaterThan(4 * termBound);
    for (const s of docReads) expect(s.read_rows, all).toBeLessThanOrEqual(4 * 256);
    // Payloads: the probe trace's granules (256 rows), never the store's.
    const payloadReads = statements.filter((s) => s.statement.includes('span_payloads'));
    expect(payloadReads.length, all).toBeGreaterThan(0);
    for (const s of payloadReads) expect(s.read_rows, all).toBeLessThanOrEqual(4 * 256);
    // Spans: the probe's partition and at most a 2,048-row granule of the store's day, per statement.
    const spanReads = statements.filter((s) => /FROM spans\b/.test(s.statement) && !s.statement.includes('search_docs'));
    for (const s of spanReads) expect(s.read_rows, all).toBeLessThanOrEqual(2 * 2048 + 2 * spans.length);
    // Together, the two searches read under half the stored payloads (the scan read them all; each read
    // has two halves, the dirty days under FINAL and the others as stored, each reading the probe's granules).
    expect(payloadReads.reduce((a, s) => a + s.read_rows, 0), all).toBeLessThan(parts.payloads / 2);
    // The payloads that reach the reader: only those that can hold the needle (the server tests them
    // first), each once — the probe's answers (every payload of its trace was read before).
    const saying = spans.filter((s) => s.output_messages.some((m) => m.content === said('hovercraft'))).length;
    expect(saying).toBeGreaterThan(0);
    expect(saying, 'some probe spans do not say the word').toBeLessThan(spans.length);
    const returned = (reads: typeof statements) => reads.filter((s) => /^SELECT/.test(s.statement)).reduce((a, s) => a + s.result_rows, 0);
    expect(returned(payloadReads.filter((s) => !/FROM spans\b/.test(s.statement))), all).toBe(2 * saying);
  }, 600_000);

  it('a common word is walked in the page\'s order: the same pages, the count a lower bound', async () => {
    const store = await open('cost'); // the first test's store: the background and the probe
    const walking = await open('cost');
    walking.listGather = { floor: 3, bound: () => 3 }; // more candidate documents than this: walked
    for (const needle of ['warehouse', 'lookup_order']) {
      let after: ConversationsPlan['after'] = null;
      for (let page = 0; page < 3; page++) {
        const p: ConversationsPlan = { ...plan(needle), limit: 7, after };
        const gathered = await store.conversations(p);
        const walked = await walking.conversations(p);
        expect(gathered.total_exact).toBe(true);
        expect(walked.total_exact).toBe(false);
        expect(walked.conversations.map((c) => [c.conversation_id, c.snippet])).toEqual(gathered.conversations.map((c) => [c.conversation_id, c.snippet]));
        expect(walked.next).toEqual(gathered.next);
        expect(walked.total_count).toBeGreaterThanOrEqual(walked.conversations.length);
        expect(walked.total_count).toBeLessThanOrEqual(gathered.total_count);
        expect(gathered.conversations).toHaveLength(7);
        after = gathered.next;
      }
    }
  }, 600_000);

  it('a needle just over the gather floor is gathered when the walk would pass most rows to fill its page', async () => {
    // The cliff of a fixed bound: a needle with a few more candidate documents than 1,000 but few
    // matching rows is walked through nearly every row. At 1M spans (50,054 rows) the bound for a
    // 200-row page is ~2,450; small lists keep the floor.
    expect(gatherBound(50_054, 201)).toBeGreaterThan(2_000);
    expect(gatherBound(150, 201)).toBe(GATHER_DOCS);
    // The same decision on a real store, the floor lowered to 3: the needle has more candidate documents
    // than that, few of the list's rows hold it, so the bound weighed for a 200-row page gathers it.
    const store = await open('cost'); // the first test's store
    const needle = NEEDLE_FEW;
    const docs = await withConnection('cost', (ch) =>
      count(ch, sql`SELECT count() AS n FROM (SELECT doc FROM search_terms WHERE project_id = ${str(P)} AND term IN (${join(needleTerms(needle)!.map((t) => sql`${u64(t)}`), ', ')})
        GROUP BY doc HAVING uniqExact(term) = ${u64(needleTerms(needle)!.length)})`));
    const rows = (await store.conversations({ ...plan(''), search: null })).total_count;
    const full = await store.conversations(plan(needle));
    expect(docs).toBeGreaterThan(3);
    expect(docs).toBeLessThanOrEqual(gatherBound(rows, 201, 3));
    expect(full.total_exact).toBe(true);
    expect(full.total_count).toBeLessThan(rows / 4);
    const weighed = await open('cost');
    weighed.listGather = { floor: 3, bound: (r, need) => gatherBound(r, need, 3) };
    expect(await weighed.conversations(plan(needle))).toEqual(full);
    // A fixed bound of 3 (the old rule) walks it: the same rows, a count that is only a lower bound.
    const fixed = await open('cost');
    fixed.listGather = { floor: 3, bound: () => 3 };
    const walked = await fixed.conversations(plan(needle));
    expect(walked.conversations).toEqual(full.conversations);
    expect(walked.total_exact).toBe(false);
  }, 600_000);

  it('the store\'s search walks a common word day by day, newest first: the hits gathering finds, reading the newest days only', async () => {
    // The background over five days (a conversation's day by its index), one trace without start times
    // (day 0, last), one past the Date column's years (day 0 too, first).
    const convs = [...new Set(background.map((s) => s.conversation_id))];
    const shifted = background.map((s) => {
      const by = BigInt(convs.indexOf(s.conversation_id) % 5) * DAY_NS;
      return { ...s, start_ns: s.start_ns! + by, end_ns: s.end_ns === null ? null : s.end_ns + by };
    });
    const traces = [...new Set(background.map((s) => s.trace_id))];
    const ofTrace = (t: string) => shifted.filter((s) => s.trace_id === t);
    const late = 7_000_000_000_000_000_000n; // 2191
    const spans = shifted.map((s) =>
      s.trace_id === traces[1] ? { ...s, start_ns: null, end_ns: null } : s.trace_id === traces[2] ? { ...s, start_ns: late + (s.start_ns % DAY_NS), end_ns: null } : s,
    );
    expect(ofTrace(traces[1]!).length).toBeGreaterThan(0);
    const store = await open('walk');
    await writeAll(store, spans);
    const walking = await open('walk');
    walking.gatherDocs = 3;
    for (const needle of ['warehouse', 'lookup_order', 'Declined']) {
      for (const limit of [1, 7, 60, 100_000]) {
        const q = { project_id: P, text: needle, limit };
        const gathered = await store.search(q);
        expect(gathered.length, needle).toBeGreaterThan(Math.min(limit, 5) - 1);
        expect(await walking.search(q), `${needle} ${limit}`).toEqual(gathered);
      }
    }
    // Every hit of a word both odd traces say, in order: the late trace's first, the one without a start last.
    const all = await walking.search({ project_id: P, text: 'support agent', limit: 100_000 });
    expect(all).toEqual(await store.search({ project_id: P, text: 'support agent', limit: 100_000 }));
    expect(all[0]!.trace_id).toBe(traces[2]);
    expect(all.at(-1)!.trace_id).toBe(traces[1]);
    // A page of a common word reads the newest days only: day 0 and the newest day of the five.
    const since = await withConnection('walk', async (ch) => {
      await ch.command(raw('SYSTEM FLUSH LOGS'));
      return (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t;
    });
    await new Promise((r) => setTimeout(r, 1100)); // query_log's event_time has whole seconds
    expect(await walking.search({ project_id: P, text: 'warehouse', limit: 7 })).toHaveLength(7);
    await withConnection('walk', async (ch) => {
      await ch.command(raw('SYSTEM FLUSH LOGS'));
      const rows = await ch.rows<{ query: string }>(
        sql`SELECT query FROM system.query_log WHERE type = 2 AND event_time > toDateTime(${str(since)}) AND query LIKE '%FROM search_terms%' AND query NOT LIKE '%system.%'`,
      );
      const partitions = await count(ch, raw("SELECT uniqExact(partition) AS n FROM system.parts WHERE database = currentDatabase() AND table = 'spans' AND active"));
      expect(partitions).toBe(6);
      // The gathering lookup (LIMIT gatherDocs + 1: day 0's, then the two newest days' until past it),
      // then one read of spans per day read: day 0 and the newest (each after the day's payloads that
      // pass the server's test).
      const spanReads = rows.filter((r) => /FROM spans\b/.test(r.query));
      const lookups = rows.filter((r) => !/FROM spans\b|FROM span_payloads\b/.test(r.query));
      expect(lookups.length, JSON.stringify(rows)).toBeGreaterThanOrEqual(1);
      expect(lookups.length, JSON.stringify(rows)).toBeLessThanOrEqual(2);
      expect(spanReads.length, JSON.stringify(rows)).toBe(2);
      expect(rows.length, JSON.stringify(rows)).toBe(lookups.length + 4);
      expect(spanReads.filter((r) => r.query.includes("day = toDate('1970-01-01')"))).toHaveLength(1);
    });
  }, 600_000);

  it('the list\'s gather reads its candidates a batch of days and ids at a time, newest first: the same rows, snippets and counts as one batch', async () => {
    const store = await open('walk'); // the previous test's store: five days, day 0 past 2149 and without a start
    const chunked = await open('walk');
    chunked.listGather = { ...store.listGather, chunking: { ids: 2, days: 1 } };
    // An order id (few rows), and a phrase the traces in day 0 say too (past 2149: first; without a start: last).
    for (const needle of [NEEDLE_FEW, 'support agent']) {
      const full = await store.conversations(plan(needle));
      expect(full.total_exact, needle).toBe(true); // gathered: under the 1,000-document floor
      expect(full.conversations.length, needle).toBeGreaterThan(0);
      const since = await withConnection('walk', async (ch) => {
        await ch.command(raw('SYSTEM FLUSH LOGS'));
        return (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t;
      });
      await new Promise((r) => setTimeout(r, 1100)); // query_log's event_time has whole seconds
      expect(await chunked.conversations(plan(needle)), needle).toEqual(full);
      const reads = await withConnection('walk', async (ch) => {
        await ch.command(raw('SYSTEM FLUSH LOGS'));
        return (await ch.rows<{ query: string }>(
          sql`SELECT query FROM system.query_log WHERE type = 2 AND event_time > toDateTime(${str(since)}) AND query NOT LIKE '%system.%' AND query NOT LIKE 'SYSTEM%'`,
        )).map((r) => r.query);
      });
      // No statement names more than two documents or two traces; documents are looked up a day at a time.
      const docLists = reads.filter((q) => q.includes('FROM search_docs')).map((q) => /doc IN \(([^)]*)\)/.exec(q)![1]!.split(',').length);
      expect(docLists.length, needle).toBeGreaterThan(1);
      for (const n of docLists) expect(n, needle).toBeLessThanOrEqual(2);
      const traceLists = reads.filter((q) => /FROM spans\b/.test(q)).map((q) => /PREWHERE trace_id IN \(([^)]*)\)/.exec(q)![1]!.split(',').length);
      for (const n of traceLists) expect(n, needle).toBeLessThanOrEqual(2);
      for (const q of reads.filter((x) => x.includes('FROM search_terms'))) expect(q.match(/toDate\(/g)?.length, needle).toBe(1);
    }
  }, 600_000);

  it('the spans list\'s newest page reads the newest days only: the pages of a whole sort, spans past 2149 first and without a start last', async () => {
    const store = await open('walk'); // the walk test's store: five days, and in day 0 a trace past 2149 and one without a start
    const base: SpansListPlan = {
      project_id: P, started_after_ns: null, started_before_ns: null, where: null, custom_columns: [], include_costs: false, include_details: false,
      sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 7, offset: 0,
    };
    const whole = (
      await withConnection('walk', (ch) =>
        ch.rows<{ k: string }>(sql`SELECT concat(trace_id, '/', span_id) AS k FROM spans FINAL WHERE project_id = ${str(P)} AND deleted = 0
          ORDER BY start_ns DESC NULLS LAST, trace_id DESC, span_id DESC`),
      )
    ).map((r) => r.k);
    expect(whole.length).toBeGreaterThan(3000);
    for (const [offset, limit] of [[0, 7], [7, 60], [900, 100], [1500, 200], [whole.length - 5, 10], [whole.length + 3, 5], [3, 0]] as const) {
      const got = await store.listSpans({ ...base, offset, limit });
      expect(got.spans.map((s) => `${s.trace_id}/${s.span_id}`), `${offset}`).toEqual(whole.slice(offset, offset + limit));
      expect(got.total_count).toBe(whole.length);
    }
    // The first page's sort read the newest day and day 0 only (the count reads every row's key columns).
    const since = await withConnection('walk', async (ch) => (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t);
    await new Promise((r) => setTimeout(r, 1100)); // query_log's event_time has whole seconds
    await store.listSpans(base);
    await withConnection('walk', async (ch) => {
      await ch.command(raw('SYSTEM FLUSH LOGS'));
      const sorts = await ch.rows<{ read_rows: string }>(
        sql`SELECT read_rows FROM system.query_log WHERE type = 2 AND event_time > toDateTime(${str(since)}) AND query LIKE '%ORDER BY start_ns%' AND query NOT LIKE '%system.%'`,
      );
      const parts = await ch.rows<{ p: string; n: string }>(raw("SELECT partition AS p, sum(rows) AS n FROM system.parts WHERE database = currentDatabase() AND table = 'spans' AND active GROUP BY p ORDER BY p"));
      expect(parts.length).toBe(6);
      const [zero, , , , , newest] = parts.map((r) => Number(r.n));
      expect(sorts.map((r) => Number(r.read_rows))).toHaveLength(1);
      expect(Number(sorts[0]!.read_rows)).toBeLessThanOrEqual(zero! + newest!);
      expect(zero! + newest!).toBeLessThan(whole.length / 2);
    });
  }, 600_000);

  it('a store written before the index answers the same by a scan, then through it once backfilled', async () => {
    const store = await open('backfill');
    await writeAll(store, background);
    const needles = ['warehouse', 'lookup_order', 'declined delayed', 'ZZQX'];
    const indexed = await Promise.all(needles.map((n) => answer(store, n)));
    expect(indexed[0]!.total).toBeGreaterThan(10);
    // As a store of the last build leaves it: spans, no terms, the backfill to do.
    await withConnection('backfill', async (ch) => {
      await ch.command(raw('TRUNCATE TABLE search_terms'));
      await ch.command(raw('TRUNCATE TABLE search_docs'));
      await ch.insertJsonEachRow('search_backfill', JSON.stringify({ name: 'terms', project_id: '', trace_id: '', done: 0, version: Date.now() * 1000 }));
    });
    const reopened = await open('backfill');
    await reopened.refuseWrites(true); // its backfill at open does nothing: the answers below are the scan's
    expect(await Promise.all(needles.map((n) => answer(reopened, n)))).toEqual(indexed);
    await withConnection('backfill', async (ch) => expect(await backfillState(ch)).toEqual([{ done: 0 }]));
    await reopened.refuseWrites(false);
    const traces = new Set(background.map((s) => s.trace_id)).size;
    expect(await reopened.indexOldSpans()).toBe(traces); // several steps of 200 traces
    expect(await reopened.indexOldSpans()).toBe(0); // done once
    await withConnection('backfill', async (ch) => {
      expect(await backfillState(ch)).toEqual([{ done: 1 }]);
      expect(await count(ch, raw('SELECT count() AS n FROM search_terms'))).toBeGreaterThan(0);
    });
    const after = await open('backfill');
    expect(await Promise.all(needles.map((n) => answer(after, n)))).toEqual(indexed);
  }, 600_000);

  it('migration 0009 leaves a backfill to do on a database that holds spans', async () => {
    await withConnection('default', async (ch) => ch.command(raw('CREATE DATABASE IF NOT EXISTS older')));
    await withConnection('older', async (ch) => {
      await migrateClickHouse(ch, chMigrations.slice(0, 8));
      const e = encodeSpans(background.slice(0, 10));
      setVersion(e.spans, 1);
      await ch.insertRowBinary('spans', SPAN_COLUMNS, [e.spans]);
      await migrateClickHouse(ch);
      expect(await backfillState(ch)).toEqual([{ done: 0 }]);
    });
  }, 120_000);

  it('a conversation written a turn at a time keeps one document: later writes add their traces and the terms it lacks, not after a delete', async () => {
    // The background conversation with the most traces, each trace its own write (as an agent exports a turn at a time).
    const byConv = new Map<string, string[]>();
    for (const s of background) if (s.conversation_id && !byConv.get(s.conversation_id)?.includes(s.trace_id)) byConv.set(s.conversation_id, [...(byConv.get(s.conversation_id) ?? []), s.trace_id]);
    const [conv, traces] = [...byConv].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(traces.length).toBeGreaterThanOrEqual(4);
    const spansOf = (t: string) => background.filter((s) => s.trace_id === t);
    const turns = await open('turns');
    for (const t of traces) await turns.writeSpans(spansOf(t));
    const whole = await open('whole');
    await whole.writeSpans(traces.flatMap(spansOf));
    const index = (db: string) =>
      withConnection(db, async (ch) => ({
        docs: await count(ch, sql`SELECT uniqExact(doc) AS n FROM search_docs WHERE project_id = ${str(P)}`),
        traces: await count(ch, sql`SELECT uniqExact(trace_id) AS n FROM search_docs WHERE project_id = ${str(P)}`),
        terms: await count(ch, raw('SELECT count() AS n FROM search_terms')),
      }));
    // One document holding every trace, and no term written twice: the same rows as one write of the whole conversation.
    const one = await index('whole');
    expect(one).toMatchObject({ docs: 1, traces: traces.length });
    expect(await index('turns')).toEqual(one);
    // The last turn's answer words and the first turn's question are found, in every trace that says them.
    const text = (t: string, side: 'input_messages' | 'output_messages') => spansOf(t).find((s) => s[side].some((m) => m.content))![side].findLast((m) => m.content)!.content.slice(0, 30);
    for (const needle of [text(traces[0]!, 'input_messages'), text(traces.at(-1)!, 'output_messages')]) {
      expect(await answer(turns, needle)).toEqual(await answer(whole, needle));
    }
    expect((await answer(turns, 'lookup_order')).rows.map((r) => r[1])).toEqual([conv]);
    // A deleted trace written again is indexed again: the writer does not add to a document the server no longer holds whole.
    const last = traces.at(-1)!;
    const needle = 'tarantula';
    await turns.deleteSpans({ kind: 'traces', project_id: P, trace_ids: [last] });
    const again = spansOf(last).map((s) => (s.output_messages.length ? { ...s, output_messages: [{ role: 'assistant', content: said(needle), finish_reason: 'stop', parts: [{ type: 'text', content: said(needle) }] }] } : s));
    await turns.writeSpans(again);
    const hits = await turns.search({ project_id: P, text: needle, limit: 50 });
    expect(new Set(hits.map((h) => h.trace_id))).toEqual(new Set([last]));
    expect((await answer(turns, 'lookup_order')).hits.map((h) => h.trace_id)).toContain(last);
    await withConnection('turns', async (ch) => expect(await count(ch, sql`SELECT uniqExact(doc) AS n FROM search_docs FINAL WHERE deleted = 0 AND trace_id = ${str(last)}`)).toBe(1));
  }, 600_000);

  it('deleting traces takes them out of the index; a retention that drops days drops the index\'s days', async () => {
    const store = await open('deletes');
    const kept = probe('zeppelin', 10n, 'kept');
    const gone = probe('zeppelin', 20n, 'gone');
    await writeAll(store, [...kept, ...gone]);
    expect((await answer(store, 'zeppelin')).rows.map((r) => r[1]).sort()).toEqual(['gone-conversation', 'kept-conversation']);
    const goneTrace = gone[0]!.trace_id;
    await store.deleteSpans({ kind: 'traces', project_id: P, trace_ids: [goneTrace] });
    expect((await answer(store, 'zeppelin')).rows.map((r) => r[1])).toEqual(['kept-conversation']);
    await withConnection('deletes', async (ch) => {
      expect(await count(ch, sql`SELECT count() AS n FROM search_docs WHERE trace_id = ${str(goneTrace)}`)).toBe(0);
      // The deleted trace's document (its own: one conversation) has no terms left; the kept one has.
      const days = await ch.rows<{ day: string; n: string }>(raw('SELECT toString(day) AS day, count() AS n FROM search_terms GROUP BY day ORDER BY day'));
      expect(days.map((d) => d.day)).toHaveLength(1);
    });
    // Everything older than the far future: whole days go, the index's with the spans'.
    await store.deleteSpans({ kind: 'older_than', project_id: null, before_ns: BigInt(Date.now() + 10 * 365 * 86_400_000) * 1_000_000n });
    await withConnection('deletes', async (ch) => {
      expect(await count(ch, raw('SELECT count() AS n FROM search_terms'))).toBe(0);
      expect(await count(ch, raw('SELECT count() AS n FROM search_docs'))).toBe(0);
    });
    expect((await answer(store, 'zeppelin')).rows).toEqual([]);
  }, 600_000);
});
