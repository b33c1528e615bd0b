/**
 * ClickHouse summaries written in the background (issue 19 item 1; writer.ts): a bulk write
 * (`writeEncoded`: imports, OTLP bodies) is answered once its spans are stored, before its summaries;
 * after `settled()` every summary equals the one a synchronous write (`writeSpans`) leaves; and a
 * writer that dies between answering and summarizing leaves a journal row that `repair` (run when any
 * writer opens the store) turns into exactly those summaries. The summary lane is held open with the
 * writer's own `exclusive` (what a delete or a repair runs in), so "before its summaries" is a state
 * the test holds, not a race it hopes to win.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { encodeForClickHouse, openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import type { Writer } from '../../src/main/store/clickhouse/writer.js';
import { healthView } from '../../src/main/service/system/store-health.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { summariesSnapshot } from '../helpers/store-snapshot.js';

const P = 'bench/genai';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chbg-'));
const opened: ClickHouseTraceStore[] = [];
const spans: SpanRecord[] = [];
let expected: unknown;

async function open(url?: string): Promise<{ url: string; store: ClickHouseTraceStore }> {
  url ??= (await freshClickHouseStore('bg')).url;
  const store = await openClickHouseTraceStore(url);
  opened.push(store);
  return { url, store };
}

/** The store's writer (its summary lane is what the test holds). */
const writerOf = (store: ClickHouseTraceStore) => (store as unknown as { writer: Writer }).writer;

/** Holds the writer's summary lane until the returned function is called. */
function holdSummaries(store: ClickHouseTraceStore): () => void {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  void writerOf(store).exclusive(() => gate);
  return release;
}

beforeAll(async () => {
  const file = path.join(dir, 'g.jsonl');
  await generateJsonl(file, { conversations: 12, agents: 3, minSpans: 600, seed: 5 });
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, { span: (s) => spans.push(s), skip: () => {} });
  }
  const { store } = await open();
  await store.writeSpans(spans); // synchronous: answered with its summaries written
  expect(store.summarizing()).toBe(0);
  expected = await summariesSnapshot(store, P);
}, 300_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ClickHouse summaries in the background', () => {
  it('a bulk write is answered before its summaries; after settled() they equal a synchronous write', async () => {
    const { store } = await open();
    const third = Math.ceil(spans.length / 3);
    const release = holdSummaries(store);
    // Three batches answered while no summary can be written; the third re-sends half of the first,
    // whose traces are not in trace_keys yet: the writer still counts those spans as replaced.
    const a = await store.writeEncoded(encodeForClickHouse(spans.slice(0, third)));
    const b = await store.writeEncoded(encodeForClickHouse(spans.slice(third)));
    const again = spans.slice(0, Math.ceil(third / 2));
    const c = await store.writeEncoded(encodeForClickHouse(again));
    expect([a.inserted, a.replaced, b.inserted, b.replaced]).toEqual([third, 0, spans.length - third, 0]);
    expect([c.inserted, c.replaced]).toEqual([0, again.length]);
    expect(store.summarizing()).toBe(3);
    expect(healthView({ dataDir: dir, traces: store }).writes.summarizing).toBe(3);
    const early = (await summariesSnapshot(store, P)) as { conversations: { conversations: unknown[] } };
    expect(early.conversations.conversations).toEqual([]); // stored, not summarized
    let settled = false;
    const waiting = store.settled().then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);

    release();
    await waiting;
    expect(store.summarizing()).toBe(0);
    expect(await summariesSnapshot(store, P)).toEqual(expected);
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
  }, 300_000);

  it('a writer that dies between answering and summarizing is repaired to the same summaries', async () => {
    const { url, store: dying } = await open();
    opened.splice(opened.indexOf(dying), 1); // never closed: close() would finish its summaries
    const half = Math.floor(spans.length / 2);
    await dying.writeSpans(spans.slice(0, half)); // summarized
    holdSummaries(dying); // never released: this writer answers the next batch, then is never heard of again
    expect(await dying.writeEncoded(encodeForClickHouse(spans.slice(half)))).toMatchObject({ inserted: spans.length - half, replaced: 0 });
    expect(dying.summarizing()).toBe(1);
    await (dying as unknown as { ch: { close(): Promise<void> } }).ch.close();

    // Another writer opens the store: the journal row of the answered batch is still open.
    const { store } = await open(url);
    expect(await summariesSnapshot(store, P)).not.toEqual(expected);
    expect(await store.repair(0)).toBe(1);
    expect(await summariesSnapshot(store, P)).toEqual(expected);
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
  }, 300_000);
});
