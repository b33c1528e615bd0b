/**
 * The worker-thread import (service/ingest/pipeline.ts) must store exactly what the in-thread import
 * stores and report exactly the same: same rows, summaries, counts, errors by line number, and the
 * same errors for broken or non-trace files. Several batches, so the backpressure path runs: the worker
 * imports write BATCH spans a transaction (the `batchSpans` option a server's import passes too), so a
 * few thousand spans make eight batches — the default 1,024 needed 8,192 spans, imported twice and
 * dumped, ~60 s of a loaded machine's test time (issue 22.6).
 */
import { describe, expect, it } from 'vitest';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { importFile, type ImportProgress } from '../../src/main/service/ingest/index.js';
import { MAX_IN_FLIGHT } from '../../src/main/service/ingest/pipeline.js';
import { ServiceError } from '../../src/shared/errors.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';

const dir = mkdtempSync(path.join(tmpdir(), 'loupe-pipeline-'));
const freshStore = tempStores('loupe-pipeline-');
/** Spans per transaction of the worker imports (the in-thread ones write BATCH_SPANS, 2,048). */
const BATCH = 256;

/**
 * REAL columns to 12 significant digits: agent summaries add costs batch by batch, and the worker's
 * batches are smaller, so float sums may differ in the last bits (integers are exact: safeIntegers).
 */
const rounded = (r: unknown) =>
  Object.fromEntries(Object.entries(r as object).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toPrecision(12)) : v]));

/** Every table the import writes, in a stable order, without the import time. */
function dump(store: TestStores): Record<string, unknown[]> {
  const db = openStoreFile(store.file, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    const q = (sql: string) => db.prepare(sql).all().map(rounded);
    return {
      spans: q('SELECT * FROM spans ORDER BY project_id, trace_id, span_id').map((r) => ({ ...(r as object), ingested_at_ms: 0 })),
      details: q('SELECT d.* FROM span_details d JOIN spans s ON s.id = d.span_rowid ORDER BY s.project_id, s.trace_id, s.span_id').map((r) => ({ ...(r as object), span_rowid: 0 })),
      traces: q('SELECT * FROM trace_summaries ORDER BY project_id, trace_id'),
      turns: q('SELECT * FROM conversation_turns ORDER BY project_id, conversation_id, trace_id'),
      agentTraces: q('SELECT * FROM agent_trace_stats ORDER BY project_id, trace_id, agent_name'),
      agents: q('SELECT * FROM agent_summaries ORDER BY project_id, agent_name'),
      projects: q('SELECT * FROM project_summaries ORDER BY project_id'),
      conversations: q('SELECT * FROM conversation_summaries ORDER BY project_id, kind, conversation_id').map((r) => ({ ...(r as object), id: 0 })),
    };
  } finally {
    db.close();
  }
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a rejection');
}

describe('import in a worker thread', () => {
  it('stores and reports exactly what the in-thread import does (rows, summaries, re-imports, bad lines)', async () => {
    const gen = path.join(dir, 'gen.jsonl');
    const g = await generateJsonl(gen, { conversations: 40, agents: 5, minSpans: BATCH * (MAX_IN_FLIGHT + 7), seed: 7 });
    const lines = readFileSync(gen, 'utf8').trimEnd().split('\n');
    // A corrupt line, a logs line, and the first 50 lines again (replaced spans, summaries recomputed).
    const text = [...lines.slice(0, 100), '{"resourceSpans": [', JSON.stringify({ resourceLogs: [] }), ...lines.slice(100), ...lines.slice(0, 50)].join('\n') + '\n';
    const file = path.join(dir, 'mixed.jsonl');
    writeFileSync(file, text);

    const inline = await freshStore();
    const threaded = await freshStore();
    const a = await importFile(inline.traces, file, { thread: 'inline' });
    const progress: ImportProgress[] = [];
    const b = await importFile(threaded.traces, file, { thread: 'worker', batchSpans: BATCH, onProgress: (p) => progress.push(p) });

    expect(b).toEqual(a);
    expect(b.spans_imported).toBe(g.spans);
    expect(b.spans_replaced).toBeGreaterThan(0);
    expect(b.errors).toEqual([{ line: 101, message: expect.stringMatching(/invalid JSON/) }]);
    expect(b.non_trace_lines_skipped).toBe(1);
    expect(dump(threaded)).toEqual(dump(inline));
    // Project rows count each span once, re-imports included.
    expect(dump(threaded).projects!.map((p) => (p as { span_count: bigint }).span_count)).toEqual([BigInt(g.spans)]);
    // Progress after every batch, then the final one.
    expect(progress.length).toBeGreaterThan(MAX_IN_FLIGHT + 6);
    expect(progress.at(-1)).toEqual({ bytes: text.length, totalBytes: text.length, spans: b.spans_imported + b.spans_replaced });
  }, 90_000);

  it('gives the same errors as in-thread for a truncated gzip and for a file that is not trace data', async () => {
    const gen = path.join(dir, 'gen2.jsonl');
    await generateJsonl(gen, { conversations: 10, agents: 3, minSpans: BATCH * 4, seed: 3 });
    const gz = zlib.gzipSync(readFileSync(gen));
    const cut = path.join(dir, 'cut.jsonl.gz');
    writeFileSync(cut, gz.subarray(0, gz.length - 500));
    const inline = await freshStore();
    const threaded = await freshStore();
    const e1 = await rejection(importFile(inline.traces, cut, { thread: 'inline' }));
    const e2 = await rejection(importFile(threaded.traces, cut, { thread: 'worker', batchSpans: BATCH }));
    expect(e2.status).toBe(400);
    expect(e2.message).toMatch(/cut\.jsonl\.gz: gzip data is truncated or corrupt after \d+ bytes .*\d+ spans from complete data before that point were stored/);
    expect(e2.message).toBe(e1.message);
    expect(dump(threaded)).toEqual(dump(inline));

    const notes = path.join(dir, 'notes.jsonl');
    writeFileSync(notes, '{"a":1}\n{"b":2}\n');
    const e3 = await rejection(importFile((await freshStore()).traces, notes, { thread: 'worker' }));
    expect(e3.status).toBe(400);
    expect(e3.message).toMatch(/notes\.jsonl: not trace data: no line is an OTLP trace request \(first problem: line 1:/);
  }, 180_000);
  // 180 s bounds (this test and the one above): the FIFO import once took 57 s of a 60 s bound at load 15.
  it('reads a pipe (a FIFO, as `loupe import /dev/stdin`) as it reads the file, plain or gzip', async () => {
    const gen = path.join(dir, 'gen3.jsonl');
    await generateJsonl(gen, { conversations: 10, agents: 3, minSpans: BATCH * 4, seed: 5 });
    const plain = readFileSync(gen);
    const fromFile = await freshStore();
    const expected = await importFile(fromFile.traces, gen, { thread: 'inline' });
    for (const [name, body, format] of [['plain', plain, 'otlp-jsonl'], ['gzip', zlib.gzipSync(plain), 'otlp-jsonl+gzip']] as const) {
      const fifo = path.join(dir, `${name}.fifo`);
      execFileSync('mkfifo', [fifo]);
      // Opening a FIFO for writing waits for its reader: the import below is that reader.
      const writer = createWriteStream(fifo);
      writer.end(body);
      const store = await freshStore();
      const progress: ImportProgress[] = [];
      const r = await importFile(store.traces, fifo, { batchSpans: BATCH, onProgress: (p) => progress.push(p) });
      expect({ name, ...r }).toEqual({ name, ...expected, format, bytes: body.length });
      expect(dump(store)).toEqual(dump(fromFile));
      expect(progress.at(-1)).toEqual({ bytes: body.length, totalBytes: body.length, spans: r.spans_imported });
    }
  }, 180_000);
});
