/**
 * Cancelling a read stops it on the ClickHouse server, not only in Loupe: the port's contract test
 * sees the promise reject at once either way (the HTTP request is aborted), but 18.16 keeps running
 * a query whose HTTP client has gone. The adapter sends KILL QUERY for the read's id; this test
 * watches system.processes to see the query leave and the query log to see how it ended.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { StoreAbortedError } from '../../src/main/store/ports.js';
import { openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { sql, str } from '../../src/main/store/clickhouse/sql.js';
import { parseSpansQuery } from '../../src/main/service/analytics/plan/spans.js';
import { contract } from '../../src/shared/contract/index.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { blank } from '../store/fixture.js';

const P = 'cancel/slow';
let store: ClickHouseTraceStore | null = null;
let watcher: ClickHouse | null = null;
afterAll(async () => {
  await store?.close();
  await watcher?.close();
});

/** A `$contains` over every span's tool result, 60 needles wide: a read of seconds (as in the contract test). */
function slowPlan(marker: string) {
  const needles = Array.from({ length: 60 }, (_, i) => ({ $contains: { input: { $getField: 'tool_call_result' }, substr: { $literal: `${marker}-${i}` }, case_insensitive: true } }));
  const q = parseSpansQuery(contract['spans.query'].input.parse({ project_id: P, query: { $expr: { $or: needles } }, limit: 10 }));
  if (q.mode !== 'list') throw new Error('not a list request');
  return q.plan;
}

describe('ClickHouse read cancellation', { timeout: 180_000 }, () => {
  it('a read stopped by its signal is ended on the server too (KILL QUERY: cancelled in the query log)', async () => {
    const { url } = await freshClickHouseStore('cancel');
    // Literal values, so the needles are in the query text system.processes shows (servers that bind
    // parameters would show {p0:String} there instead).
    process.env.LOUPE_CLICKHOUSE_PARAMS = 'literal';
    try {
      store = await openClickHouseTraceStore(url);
    } finally {
      delete process.env.LOUPE_CLICKHOUSE_PARAMS;
    }
    watcher = await ClickHouse.connect(parseStoreUrl(url), { createDatabase: false });
    const spans: SpanRecord[] = [];
    for (let i = 0; i < 20_000; i++) {
      spans.push(blank({ project_id: P, trace_id: (0x5000 + Math.floor(i / 20)).toString(16).padStart(32, '0'), span_id: (0x10000 + i).toString(16).padStart(16, '0'),
        start_ns: 1_800_000_000_000_000_000n + BigInt(i), tool_call_result: `result ${i} `.repeat(20) }));
    }
    await store.writeSpans(spans);
    // The needle marks the query text, so the watcher finds this read among the server's processes.
    const running = async (marker: string) =>
      Number((await watcher!.rows<{ n: string }>(sql`SELECT count() AS n FROM system.processes WHERE position(query, ${str(`${marker}-0`)}) > 0 AND position(query, 'system.processes') = 0`))[0]!.n);

    const t0 = performance.now();
    await store.listSpans(slowPlan('whole'));
    const wholeMs = performance.now() - t0;

    const stop = new AbortController();
    const read = store.listSpans(slowPlan('stopped'), { signal: stop.signal });
    read.catch(() => {});
    while (!(await running('stopped'))) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await expect(read).rejects.toBeInstanceOf(StoreAbortedError);
    while (await running('stopped')) await new Promise((r) => setTimeout(r, 20));
    // How the server ended it (the test server logs queries): a killed query ends with code 394
    // (QUERY_WAS_CANCELLED); one whose HTTP client merely left runs to its end (18.16) and finishes or fails
    // writing its answer. No timing involved.
    await watcher.command(sql`SYSTEM FLUSH LOGS`);
    const ends = await watcher.rows<{ type: string; exception: string }>(
      sql`SELECT toString(type) AS type, exception FROM system.query_log WHERE position(query, ${str('stopped-0')}) > 0 AND position(query, 'system.') = 0 AND type != 'QueryStart'`,
    );
    expect(ends.length, `query_log rows of the stopped read (whole read took ${wholeMs.toFixed(0)} ms)`).toBeGreaterThan(0);
    expect(ends.map((e) => e.exception).join(' | ')).toMatch(/Code: 394\b/); // QUERY_WAS_CANCELLED
  });
});
