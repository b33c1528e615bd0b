/**
 * Import of a file with bounded memory: read-file.ts reads it chunk by chunk into an import session
 * whose batches are written as they come, on this thread for small files and through the ingest
 * worker (pipeline.ts) for large ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TraceStore } from '../../store/ports.js';
import type { ImportReport } from '../../../shared/contract/import-report.js';
import { ServiceError } from '../../../shared/errors.js';
import { ImportSession, StoreWriter, completeReport } from './session.js';
import { importFileInWorker } from './pipeline.js';
import { isGzip } from './document.js';
import { readFileInto, truncatedError, type BrokenRead, type FileJob, type ImportFileOptions } from './read-file.js';

async function readHead(file: string): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return buf.subarray(0, bytesRead);
  } catch (e) {
    throw new ServiceError(400, `${file}: cannot be read (${(e as Error).message})`);
  } finally {
    await fh.close();
  }
}

/**
 * Files at least this big are parsed and normalized in a worker thread while this thread writes
 * (pipeline.ts); smaller ones are not worth starting a thread for (~0.1–0.3 s).
 */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;

export async function importFile(store: TraceStore, filePath: string, opts: ImportFileOptions = {}): Promise<ImportReport> {
  const where = path.basename(filePath);
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(filePath);
  } catch (e) {
    throw new ServiceError(400, `${filePath}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  // A pipe (a FIFO, /dev/stdin, `<(zcat …)`) streams like a file whose size is known only at its end.
  const pipe = stat.isFIFO() || stat.isCharacterDevice() || stat.isSocket();
  if (!stat.isFile() && !pipe) throw new ServiceError(400, `${filePath}: not a file`);
  if (!pipe && stat.size === 0) throw new ServiceError(400, `${where}: the file is empty`);
  const job: FileJob = pipe
    ? { filePath, where, size: null, zipped: null }
    : { filePath, where, size: stat.size, zipped: isGzip(await readHead(filePath)) };
  const threaded = opts.thread === 'worker' || (opts.thread !== 'inline' && (pipe || stat.size >= (opts.workerMinBytes ?? WORKER_MIN_BYTES)));
  if (threaded) return importFileInWorker(store, job, opts);

  let rawBytes = 0;
  const stored = new StoreWriter(store);
  const session = new ImportSession(
    stored,
    opts.projectId,
    () => opts.onProgress?.({ bytes: rawBytes, totalBytes: job.size, spans: stored.inserted + stored.replaced }),
    undefined,
    store.adapter,
  );
  let broken: BrokenRead | null;
  try {
    broken = await readFileInto(session, job, (n) => (rawBytes = n));
  } finally {
    // What was flushed before a bad input stopped the read is written, as the report says.
    await stored.settled().catch(() => undefined);
  }
  const parsed = await session.finish();
  if (broken) throw truncatedError(job, broken, stored.inserted + stored.replaced);
  const report = completeReport(parsed, stored, opts.events);
  opts.onProgress?.({ bytes: session.bytes, totalBytes: session.bytes, spans: stored.inserted + stored.replaced });
  return report;
}
