/**
 * SQLite's own consistency checks, run on a separate read-only connection in a worker thread so a
 * check of a multi-gigabyte database never holds the server's thread: `PRAGMA quick_check` (every
 * page and record readable, indexes the right size; at start) or `PRAGMA integrity_check` (also every
 * index entry matches its row; on request). Returns the problems SQLite lists (at most 100), or none.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

export interface IntegrityResult {
  ok: boolean;
  problems: string[];
  ms: number;
}

// CommonJS inside the worker: no tsx bootstrap is needed, and the Electron build passes its own addon.
const CHECK = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let db;
let problems;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true, nativeBinding: workerData.nativeBinding });
  db.pragma('busy_timeout = 10000');
  const rows = db.pragma(workerData.full ? 'integrity_check(100)' : 'quick_check(100)', { simple: false });
  problems = rows.map((r) => String(Object.values(r)[0])).filter((m) => m !== 'ok');
} catch (e) {
  problems = [(e.code ? e.code + ': ' : '') + e.message];
} finally {
  if (db) db.close();
}
// Answered only once the connection is closed: a server that stops right after the answer closes its
// own connection last, so SQLite removes the -shm (two closing at once can each leave it to the other).
parentPort.postMessage({ problems });`;

export function checkIntegrity(file: string, opts: { full?: boolean; nativeBinding?: string } = {}): Promise<IntegrityResult> {
  const started = performance.now();
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(CHECK, { eval: true, workerData: { file, full: opts.full ?? false, nativeBinding: opts.nativeBinding, module } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { problems: string[] }) => {
      void worker.terminate();
      resolve({ ok: m.problems.length === 0, problems: m.problems, ms: Math.round(performance.now() - started) });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`integrity check worker exited (code ${code}) before answering`)));
  });
}
