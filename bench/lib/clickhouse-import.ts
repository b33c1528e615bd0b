/**
 * Imports an OTLP JSONL file (or a FIFO the generator writes) into a ClickHouse store, for the
 * ClickHouse scale section; run as a child process so its CPU and peak RSS are its own:
 *
 *   tsx bench/lib/clickhouse-import.ts <file> <clickhouse://…> [batchSpans] [checkpointEvery] [project]
 *
 * Prints one JSON line at the end: {spans, ms, cpuMs, maxRssMb, writeMs, batches}; `ms` ends once every
 * summary is written (close waits for them), `writeMs` sums the waits for each batch to be stored. With
 * `checkpointEvery`, it also stops after each such many spans (at a batch's end, every write
 * acknowledged), prints {checkpoint, ms, cpuMs, writeMs, batches, maxBatchMs} for that stretch and
 * waits for a line on stdin before going on: the section measures the store at that size meanwhile.
 * `project` stores the spans under that project with their trace and conversation ids prefixed by it,
 * so a second import of the same workload is new spans, not replacements (the two-importers figure).
 *
 * Parsing overlaps writing: while the server stores batch n (its own process, its own core), this
 * process parses batch n+1; at most one batch is in flight, so memory stays bounded.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { encodeForClickHouse, openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';

export const BATCH_SPANS = 20_000;

async function cli(): Promise<void> {
  const [file, url, batchArg, checkpointArg, project] = process.argv.slice(2);
  const batchSpans = Number(batchArg || BATCH_SPANS);
  const every = Number(checkpointArg || 0);
  const store = await openClickHouseTraceStore(url!);
  const stdin = every ? readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]() : null;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let spans = 0;
  let writeMs = 0;
  let batches = 0;
  // The current stretch between checkpoints.
  let stretch = { t: performance.now(), cpu: process.cpuUsage(), writeMs: 0, batches: 0, maxBatchMs: 0 };
  let nextCheckpoint = every;
  let queued = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let batch: SpanRecord[] = [];
  const flush = async () => {
    const encoded = encodeForClickHouse(batch);
    queued += batch.length;
    batch = [];
    await inFlight;
    inFlight = (async () => {
      const t = performance.now();
      const r = await store.writeEncoded(encoded);
      const ms = performance.now() - t;
      writeMs += ms;
      batches++;
      stretch.writeMs += ms;
      stretch.batches++;
      stretch.maxBatchMs = Math.max(stretch.maxBatchMs, ms);
      spans += r.inserted + r.replaced;
    })();
    if (stdin && queued >= nextCheckpoint) {
      await inFlight;
      await store.settled(); // the stretch ends with every summary written (writes answer once stored)
      const cpu = process.cpuUsage(stretch.cpu);
      console.log(JSON.stringify({ checkpoint: spans, ms: performance.now() - stretch.t, cpuMs: (cpu.user + cpu.system) / 1000, writeMs: stretch.writeMs, batches: stretch.batches, maxBatchMs: stretch.maxBatchMs }));
      while (nextCheckpoint <= queued) nextCheckpoint += every;
      await stdin.next();
      stretch = { t: performance.now(), cpu: process.cpuUsage(), writeMs: 0, batches: 0, maxBatchMs: 0 };
    }
  };
  const rename = project
    ? (s: SpanRecord) => batch.push({ ...s, project_id: project, trace_id: `${project}-${s.trace_id}`, conversation_id: s.conversation_id && `${project}-${s.conversation_id}` })
    : (s: SpanRecord) => batch.push(s);
  const sink = { span: rename, skip: () => {} };
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
  console.log(JSON.stringify({ spans, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, writeMs, batches }));
  process.exit(0); // stdin may still be open
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli();
