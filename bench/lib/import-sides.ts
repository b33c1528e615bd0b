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
 *        upserts, bodies, summaries, search index, commits, WAL policy) into a new store in <dir> (with
 *        LOUPE_BENCH_KEEP=1 into the store already there); prints the writing thread's own CPU and the bytes read
 *        and written
 *   tsx bench/lib/import-sides.ts prepare <file.jsonl> <out.batches>   → the packed batches saved once, so
 *        that repeated `write <out.batches> <dir>` runs spend no CPU preparing them (the prepare of 100k
 *        history spans costs more than their write); the file holds the batches of today's code only
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
import type { PackedRows } from '../../src/main/store/sqlite/packed-rows.js';

/** Reads `file` as the ingest worker does; each batch of prepared rows, packed (store/sqlite/packed-rows.ts), goes to `take`. */
async function prepareAll(file: string, take: (batch: EncodedBatch) => void): Promise<void> {
  const encoder = spanEncoder('sqlite')!;
  const writer: BatchWriter<unknown> = { prepare: (s) => encoder.prepare(s), full: () => encoder.full(), write: (rows) => take(encoder.batch(rows)) };
  const session = new ImportSession(writer, undefined, undefined, PIPELINE_BATCH_SPANS, 'sqlite');
  const broken = await readFileInto(session, { filePath: file, where: path.basename(file), size: fs.statSync(file).size, zipped: null }, () => undefined);
  if (broken) throw new Error(`${file}: ${broken.cause}`);
  await session.finish();
}

/** Packed batches saved by `prepare`: per batch its row count, byte length and bytes. */
function saveBatches(out: string, batches: EncodedBatch[]): void {
  const fd = fs.openSync(out, 'w');
  for (const b of batches) {
    const p = b.payload as PackedRows;
    const head = Buffer.alloc(8);
    head.writeUInt32LE(p.rows, 0);
    head.writeUInt32LE(p.byteLength, 4);
    fs.writeSync(fd, head);
    fs.writeSync(fd, new Uint8Array(p.packed, 0, p.byteLength));
  }
  fs.closeSync(fd);
}

function loadBatches(file: string): EncodedBatch[] {
  const all = fs.readFileSync(file);
  const out: EncodedBatch[] = [];
  for (let at = 0; at < all.length; ) {
    const rows = all.readUInt32LE(at);
    const byteLength = all.readUInt32LE(at + 4);
    const packed = new ArrayBuffer(byteLength);
    new Uint8Array(packed).set(all.subarray(at + 8, at + 8 + byteLength));
    at += 8 + byteLength;
    const payload: PackedRows = { packed, byteLength, rows };
    out.push({ adapter: 'sqlite', count: rows, payload });
  }
  return out;
}

/** CPU ms of the calling thread alone (utime + stime of /proc/thread-self/stat, in 10 ms ticks): V8's helper threads left out. */
const threadMs = (): number => {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
};

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
  } else if (mode === 'prepare' && file && dir) {
    const batches: EncodedBatch[] = [];
    await prepareAll(file, (batch) => batches.push(batch));
    saveBatches(dir, batches);
    console.log(JSON.stringify({ spans: batches.reduce((n, b) => n + b.count, 0), batches: batches.length }));
  } else if (mode === 'write' && file && dir) {
    let batches: EncodedBatch[] = [];
    if (file.endsWith('.batches')) batches = loadBatches(file);
    else await prepareAll(file, (batch) => batches.push(batch));
    // LOUPE_BENCH_KEEP=1: written into the store already in <dir> (a store grown part by part, or a copy of a big one).
    if (!process.env.LOUPE_BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const db = path.join(dir, 'loupe.db');
    const side = createWriteSide(openDatabase(db), db);
    const job = side.channelJob();
    const io = () => Object.fromEntries(fs.readFileSync('/proc/self/io', 'utf8').trim().split('\n').map((l) => l.split(': ')).map(([k, v]) => [k, Number(v)]));
    const io0 = io();
    const cpu0 = process.cpuUsage();
    const thread0 = threadMs();
    for (const batch of batches) {
      const msg: ChannelMessage = { type: 'batch', batch, lines: [], rawBytes: 0 };
      job.take(msg);
      side.afterWrite();
    }
    const ms = cpuMs(cpu0);
    const thread = threadMs() - thread0;
    const io1 = io();
    // Bytes the process read and wrote (MB), page cache included: rchar / wchar of /proc/self/io.
    const mb = (k: string) => Math.round((io1[k]! - io0[k]!) / 1e5) / 10;
    side.close();
    console.log(JSON.stringify({ spans: batches.reduce((n, b) => n + b.count, 0), cpuMs: ms, threadMs: thread, readMB: mb('rchar'), writtenMB: mb('wchar') }));
  } else {
    console.error('usage: tsx bench/lib/import-sides.ts parse <file.jsonl> | prepare <file.jsonl> <out.batches> | write <file.jsonl | file.batches> <dir>');
    process.exitCode = 2;
  }
}

await cli();
