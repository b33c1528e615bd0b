/**
 * The two sides of a SQLite import measured apart, each on one thread (issue 19 item 3): on a machine
 * shared with other work a whole import varies by ±15 % from run to run, more than most single cuts,
 * and its CPU mixes the ingest worker, the writer thread and V8's helpers. Each side alone, alternated
 * a few times against another tree, shows a cut of a few per cent.
 *
 *   tsx bench/lib/import-sides.ts parse <file.jsonl>         → {spans, cpuMs}: read, parse,
 *        normalize, prepare and pack the rows (what the ingest worker does), nothing written
 *   tsx bench/lib/import-sides.ts write <file.jsonl> <dir>   → {spans, cpuMs}: the rows prepared first (not
 *        counted), then written batch by batch through the writer thread's own code (write-side.ts:
 *        upserts, bodies, summaries, search index, commits, WAL policy) into a new store in <dir>
 *
 * What a batch kept alive costs the collector shows with `node --trace-gc-nvp --import tsx …` (the
 * `promoted=` bytes of each scavenge).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ImportSession, type BatchWriter } from '../../src/main/service/ingest/session.js';
import { readFileInto } from '../../src/main/service/ingest/read-file.js';
import { PIPELINE_BATCH_SPANS } from '../../src/main/service/ingest/pipeline.js';
import { spanEncoder } from '../../src/main/store/index.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { createWriteSide } from '../../src/main/store/sqlite/write-side.js';
import type { ChannelMessage } from '../../src/main/store/sqlite/write-protocol.js';
import type { EncodedBatch } from '../../src/main/store/ports.js';

/** Reads `file` as the ingest worker does; each batch of prepared rows, packed (store/sqlite/packed-rows.ts), goes to `take`. */
async function prepareAll(file: string, take: (batch: EncodedBatch) => void): Promise<void> {
  const encoder = spanEncoder('sqlite')!;
  const writer: BatchWriter<unknown> = { prepare: (s) => encoder.prepare(s), full: () => encoder.full(), write: (rows) => take(encoder.batch(rows)) };
  const session = new ImportSession(writer, undefined, undefined, PIPELINE_BATCH_SPANS, 'sqlite');
  const broken = await readFileInto(session, { filePath: file, where: path.basename(file), size: fs.statSync(file).size, zipped: null }, () => undefined);
  if (broken) throw new Error(`${file}: ${broken.cause}`);
  await session.finish();
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};

async function cli(): Promise<void> {
  const [mode, file, dir] = process.argv.slice(2);
  if (mode === 'parse' && file) {
    let spans = 0;
    const cpu0 = process.cpuUsage();
    await prepareAll(file, (batch) => void (spans += batch.count));
    console.log(JSON.stringify({ spans, cpuMs: cpuMs(cpu0) }));
  } else if (mode === 'write' && file && dir) {
    const batches: EncodedBatch[] = [];
    await prepareAll(file, (batch) => batches.push(batch));
    fs.rmSync(dir, { recursive: true, force: true });
    const db = path.join(dir, 'loupe.db');
    const side = createWriteSide(openDatabase(db), db);
    const job = side.channelJob();
    const cpu0 = process.cpuUsage();
    for (const batch of batches) {
      const msg: ChannelMessage = { type: 'batch', batch, lines: [], rawBytes: 0 };
      job.take(msg);
      side.afterWrite();
    }
    const ms = cpuMs(cpu0);
    side.close();
    console.log(JSON.stringify({ spans: batches.reduce((n, b) => n + b.count, 0), cpuMs: ms }));
  } else {
    console.error('usage: tsx bench/lib/import-sides.ts parse <file.jsonl> | write <file.jsonl> <dir>');
    process.exitCode = 2;
  }
}

await cli();
