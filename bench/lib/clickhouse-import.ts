/**
 * Imports an OTLP JSONL file (or a FIFO the generator writes) into a ClickHouse store, for the
 * clickhouse bench section; run as a child process so its CPU and peak RSS are its own:
 *
 *   tsx bench/lib/clickhouse-import.ts <file> <clickhouse://…> [batchSpans]   → one JSON line {spans, ms, cpuMs, maxRssMb, writeMs}
 *
 * Parsing overlaps writing: while the server stores batch n (its own process, its own core), this
 * process parses batch n+1; at most one batch is in flight, so memory stays bounded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { encodeForClickHouse, openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';

export const BATCH_SPANS = 20_000;

async function cli(): Promise<void> {
  const [file, url, batchArg] = process.argv.slice(2);
  const batchSpans = Number(batchArg ?? BATCH_SPANS);
  const store = await openClickHouseTraceStore(url!);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let spans = 0;
  let writeMs = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let batch: SpanRecord[] = [];
  const flush = async () => {
    const encoded = encodeForClickHouse(batch);
    batch = [];
    await inFlight;
    inFlight = (async () => {
      const t = performance.now();
      const r = await store.writeEncoded(encoded);
      writeMs += performance.now() - t;
      spans += r.inserted + r.replaced;
    })();
  };
  const sink = { span: (s: SpanRecord) => batch.push(s), skip: () => {} };
  // Chunks, not readline: a Readable's async iterator waits for the consumer (readline's queues every
  // line the generator writes, and the whole workload ends up in memory).
  let rest = '';
  for await (const chunk of fs.createReadStream(file!, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line) walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, sink);
      if (batch.length >= batchSpans) await flush();
    }
  }
  if (rest) walkRequest(JSON.parse(rest) as Record<string, unknown>, undefined, sink);
  if (batch.length) await flush();
  await inFlight;
  await store.close();
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ spans, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, writeMs }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli();
