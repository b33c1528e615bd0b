/**
 * The ClickHouse write path at scale and through a server crash (issue 19 item 1, issue 23 item 5), on a
 * private server of this file: one test kills it with SIGKILL, which must never hit the run's shared server.
 *
 *  - What a write reads does not grow with the store: a new trace written into a store of thousands of
 *    spans reads (the server's own query log, read_rows) a few granules per statement, not the store.
 *  - `loupe import --store` survives its server being killed -9 and restarted mid-import: the import
 *    finishes and every summary is exactly a clean import's.
 *  - A batch a writer left unfinished (spans stored, summaries not) is recomputed by `repair`, which
 *    runs when a store opens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import type { ClickHouse } from '../../src/main/store/clickhouse/connection.js';
import { encodeSpans, PAYLOAD_COLUMNS, SPAN_COLUMNS } from '../../src/main/store/clickhouse/encode.js';
import { setVersion } from '../../src/main/store/clickhouse/row-binary.js';
import { raw, sql, str } from '../../src/main/store/clickhouse/sql.js';
import { startClickHouse, stopClickHouse, clickhouseMissing, type ClickHouseServer, withConnection as withConnectionTo } from '../helpers/clickhouse-server.js';
import { loupeBin, exited } from '../helpers/spawn-loupe.js';
import { summariesSnapshot } from '../helpers/store-snapshot.js';

const P = 'bench/genai';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chcost-'));
let server: ClickHouseServer;
const opened: ClickHouseTraceStore[] = [];

beforeAll(async () => {
  const missing = clickhouseMissing();
  if (missing) throw new Error(missing);
  server = await startClickHouse({ dir: path.join(dir, 'server') });
}, 120_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  if (server) await stopClickHouse(server, { removeDir: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

const urlOf = (db: string) => `clickhouse://default@127.0.0.1:${server.httpPort}/${db}`;

async function open(db: string): Promise<ClickHouseTraceStore> {
  const s = await openClickHouseTraceStore(urlOf(db));
  opened.push(s);
  return s;
}

async function spansOf(file: string): Promise<SpanRecord[]> {
  const spans: SpanRecord[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, { span: (s) => spans.push(s), skip: () => {} });
  }
  return spans;
}

const withConnection = <T>(db: string, fn: (ch: ClickHouse) => Promise<T>): Promise<T> => withConnectionTo(urlOf(db), fn);

const DAY_NS = 86_400_000_000_000n;

describe('ClickHouse writes', () => {
  it('a write reads only the rows of its own traces, not the store', async () => {
    const file = path.join(dir, 'background.jsonl');
    await generateJsonl(file, { conversations: 300, agents: 5, minSpans: 8000, seed: 3 });
    const background = await spansOf(file);
    const store = await open('cost');
    for (let i = 0; i < background.length; i += 2000) await store.writeSpans(background.slice(i, i + 2000));
    const traces = new Set(background.map((s) => s.trace_id)).size;
    expect(traces).toBeGreaterThan(1500);

    // One new turn of a new conversation, forty days later: a partition of its own, ids nobody has.
    const first = background.filter((s) => s.trace_id === background[0]!.trace_id);
    const probe = first.map((s) => ({
      ...s,
      trace_id: `probe${s.trace_id.slice(5)}`,
      conversation_id: 'probe-conversation',
      start_ns: s.start_ns! + 40n * DAY_NS,
      end_ns: s.end_ns === null ? null : s.end_ns + 40n * DAY_NS,
    }));
    /** The statements a write of `spans` ran, with the rows each read (the server's query log). */
    const measure = async (spans: SpanRecord[]) => {
      const since = await withConnection('cost', async (ch) => {
        await ch.command(raw('SYSTEM FLUSH LOGS'));
        return (await ch.rows<{ t: string }>(raw('SELECT toString(now()) AS t')))[0]!.t;
      });
      await new Promise((r) => setTimeout(r, 1100)); // query_log's event_time has whole seconds
      await store.writeSpans(spans);
      return withConnection('cost', async (ch) => {
        await ch.command(raw('SYSTEM FLUSH LOGS'));
        const rows = await ch.rows<{ query: string; read_rows: string }>(
          sql`SELECT query, read_rows FROM system.query_log WHERE type = 2 AND event_time > toDateTime(${str(since)})
              AND query NOT LIKE '%system.%' AND query NOT LIKE 'SYSTEM%' ORDER BY event_time`,
        );
        return rows.map((r) => ({ statement: r.query.replace(/\s+/g, ' ').slice(0, 400), read_rows: Number(r.read_rows) }));
      });
    };
    const expectSmall = (statements: { statement: string; read_rows: number }[]) => {
      const reads = statements.filter((s) => s.read_rows > 0);
      // The reads a write does: the trace's keys, the conversation's turns, the trace's spans, the rollup.
      expect(reads.length).toBeGreaterThanOrEqual(3);
      // Each reads a few granules (128 rows in the key tables, 2,048 in the span tables, per part), while
      // the store holds 8,000 spans in ~2,000 traces: the statements before migration 0004 read them all.
      for (const s of reads) expect(s.read_rows, JSON.stringify(s)).toBeLessThanOrEqual(1200);
      const total = reads.reduce((a, s) => a + s.read_rows, 0);
      expect(total, JSON.stringify(statements)).toBeLessThan(background.length / 2);
    };
    const statements = await measure(probe);
    // The writer's look-ups are filled by the summary inserts (migration 0010): no statement of their own.
    expect(statements.filter((s) => /INSERT INTO (trace_keys|conversation_keys)\b/.test(s.statement))).toEqual([]);
    expect(statements.filter((s) => /INSERT INTO trace_summaries\b/.test(s.statement))).toHaveLength(1);
    expectSmall(statements);

    // A new turn in the day every background span is in: its day row is updated from the turn's own contribution
    // (trace_days, migration 0014), not recomputed from the day's 8,000 spans (which it was before).
    const sameDay = first.map((s) => ({ ...s, trace_id: `probf${s.trace_id.slice(5)}`, conversation_id: 'probe-conversation-2' }));
    const inDay = await measure(sameDay);
    expect(inDay.filter((s) => /^INSERT INTO project_days FORMAT/.test(s.statement))).toHaveLength(1);
    expect(inDay.filter((s) => /^INSERT INTO project_days \(/.test(s.statement))).toEqual([]); // the recompute from the day's spans
    // The day row's upkeep reads the stored row and the window log; the span statements a granule of each part.
    const upkeep = inDay.filter((s) => /\b(project_days|trace_days|day_writes)\b/.test(s.statement) && s.read_rows > 0);
    expect(upkeep.length).toBeGreaterThanOrEqual(2);
    for (const s of upkeep) expect(s.read_rows, JSON.stringify(s)).toBeLessThanOrEqual(200);
    for (const s of inDay) expect(s.read_rows, JSON.stringify(s)).toBeLessThanOrEqual(4096);
    expect(inDay.reduce((a, s) => a + s.read_rows, 0), JSON.stringify(inDay)).toBeLessThan(background.length);
  }, 600_000);

  it('a batch left with its spans stored and its summaries unwritten is recomputed by repair', async () => {
    const file = path.join(dir, 'repair.jsonl');
    await generateJsonl(file, { conversations: 10, agents: 3, minSpans: 400, seed: 11 });
    const spans = await spansOf(file);
    const reference = await open('repair_ref');
    await reference.writeSpans(spans);
    const expected = await summariesSnapshot(reference, P);

    const store = await open('repair');
    const half = Math.floor(spans.length / 2);
    await store.writeSpans(spans.slice(0, half));
    // The rest as a writer killed right after its insert leaves it: journal row and spans, no summaries.
    const rest = encodeSpans(spans.slice(half));
    const traceIds = [...new Set(rest.keys.map((k) => k[1]))];
    const days = [...new Set(rest.keys.map((k) => k[3]))];
    await withConnection('repair', async (ch) => {
      const version = Date.now() * 1000 + 1000;
      // Written 5 s ago: older than the repair asked for below, younger than the 60 s after which the
      // store's own repair at open (a timer) takes a batch, so that one leaves it to this test.
      const written = new Date(Date.now() - 5000).toISOString().slice(0, 19).replace('T', ' ');
      await ch.insertJsonEachRow('write_journal', JSON.stringify({ project_id: P, batch_id: 'killed', written, trace_ids: traceIds, days, conversation_ids: [], done: 0, version }));
      setVersion(rest.spans, version);
      setVersion(rest.payloads, version);
      await ch.insertRowBinary('spans', SPAN_COLUMNS, [rest.spans]);
      await ch.insertRowBinary('span_payloads', PAYLOAD_COLUMNS, [rest.payloads]);
    });
    expect(await summariesSnapshot(store, P)).not.toEqual(expected);
    // Two repairs asked at once (the store's timer and a person, say) run one after the other: the
    // batch is redone once.
    const counts = await Promise.all([store.repair(0), store.repair(0)]);
    expect(counts).toEqual([1, 0]);
    expect(await summariesSnapshot(store, P)).toEqual(expected);
    expect(await store.verify({ full: true })).toMatchObject({ ok: true });
    expect(await store.repair(0)).toBe(0); // done now
  }, 600_000);

  it('an import whose server is killed -9 mid-way finishes when the server is back, with exact summaries', async () => {
    const file = path.join(dir, 'crash.jsonl');
    await generateJsonl(file, { conversations: 40, agents: 4, minSpans: 4000, seed: 21 });
    const reference = await open('crash_ref');
    await reference.writeSpans(await spansOf(file));
    const expected = await summariesSnapshot(reference, P);
    await (await open('crash')).close(); // the database and its schema exist before the import starts

    const child = spawn(process.execPath, [loupeBin, 'import', file, '--data-dir', path.join(dir, 'crash-data'), '--store', urlOf('crash'), '--json'], {
      // Batches of 1,024 spans: the 4,000-span file is several batches (16,384 by default would be one).
      env: { ...process.env, LOUPE_STORE: '', LOUPE_CLICKHOUSE_RETRY_MS: '300000', LOUPE_CLICKHOUSE_BATCH_SPANS: '1024' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const done = exited(child);
    // Killed once the import has finished a batch and started another.
    const batches = async () =>
      withConnection('crash', async (ch) => Number((await ch.rows<{ n: string }>(raw('SELECT uniqExact(batch_id) AS n FROM write_journal')))[0]!.n)).catch(() => 0);
    for (let i = 0; i < 600 && (await batches()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await batches()).toBeGreaterThanOrEqual(2);
    process.kill(server.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 2000));
    server = await startClickHouse({ dir: server.dir, ports: { http: server.httpPort, tcp: server.tcpPort, interserver: server.interserverPort! } });

    expect(await done, err).toBe(0);
    expect((JSON.parse(out) as { files: { report: unknown }[] }).files[0]!.report).toMatchObject({ spans_imported: (await spansOf(file)).length, spans_replaced: 0 });
    const store = await open('crash');
    expect(await summariesSnapshot(store, P)).toEqual(expected);
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
  }, 900_000);
});
