/**
 * One running Loupe per data folder (issue 13.1). Two servers on one folder (the desktop app and
 * `loupe serve` share the default folder) each started a training runtime: the second marked the
 * first's running job FAILED at start while the first completed it, and both trained the same queued
 * job. So the server holds an operating-system lock on `<data>/loupe.lock` for as long as it runs.
 *
 * The lock is SQLite's own exclusive file lock (a POSIX fcntl / Windows LockFileEx lock) on a tiny
 * database: the kernel drops it when the process dies, however it dies (kill -9, power loss), so there
 * is no stale-lock guessing by pid or age, and it works between threads of one process too (SQLite
 * tracks locks per inode). Who holds it is written beside it in `loupe.lock.json` (pid, what, URL,
 * since), so the second instance can say which process to look at, and the desktop app can attach to
 * the running server instead of starting its own (docs/decisions/0003-data-folder-lock.md).
 *
 * CLI imports and `loupe demo` do not take the lock: they start no trainer, SQLite serializes their
 * writes with the server's, and the server announces their writes to open views (external-writes.ts).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE = 'loupe.lock';
export const HOLDER_FILE = 'loupe.lock.json';

export interface LockHolder {
  pid: number;
  /** What holds the folder, e.g. "loupe serve" or "Loupe desktop app". */
  what: string;
  host: string;
  since: string;
  /** The loopback URL of the holder's server, once it listens. */
  url: string | null;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(
      holder
        ? `data folder ${dataDir} is in use by ${holder.what} (pid ${holder.pid}${holder.host !== os.hostname() ? ` on ${holder.host}` : ''}` +
            `${holder.url ? `, ${holder.url}` : ''}, since ${holder.since}); stop it, use it, or pick another folder with --data-dir`
        : `data folder ${dataDir} is in use by another Loupe; stop it, or pick another folder with --data-dir`,
    );
  }
}

export interface DataLock {
  /** Records the URL once the server listens (shown to a second instance; used by the desktop app to attach). */
  setUrl(url: string): void;
  release(): void;
}

export interface LockOptions {
  what: string;
  /** An Electron build of better-sqlite3 (see store/sqlite/open.ts). */
  nativeBinding?: string;
}

/** Takes the folder's lock or throws DataDirInUseError naming the holder. */
export function acquireDataLock(dataDir: string, opts: LockOptions): DataLock {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  fs.closeSync(fs.openSync(file, 'a', 0o600)); // SQLite would create it 0644
  const db = new Database(file, { nativeBinding: opts.nativeBinding });
  try {
    db.pragma('busy_timeout = 0');
    // Nothing is ever written to the lock file: a transaction on an empty file prepares its first page,
    // which with a journal on disk needed a write — and on a full disk Loupe refused to start (23.3).
    db.pragma('journal_mode = MEMORY');
    // Held until the connection closes: no other connection, in any process, can begin one.
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new DataDirInUseError(dataDir, readHolder(dataDir));
    throw err;
  }
  const holder: LockHolder = { pid: process.pid, what: opts.what, host: os.hostname(), since: new Date().toISOString(), url: null };
  writeHolder(dataDir, holder);
  let released = false;
  return {
    setUrl(url) {
      if (released) return;
      holder.url = url;
      writeHolder(dataDir, holder);
    },
    release() {
      if (released) return;
      released = true;
      // The holder file first: a successor that gets the lock writes its own right after.
      const current = readHolder(dataDir);
      if (current?.pid === holder.pid && current.since === holder.since) fs.rmSync(path.join(dataDir, HOLDER_FILE), { force: true });
      db.close();
    },
  };
}

/** Who holds the folder, as last written (null when unknown or unreadable). */
export function readHolder(dataDir: string): LockHolder | null {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8')) as LockHolder;
    return typeof v.pid === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** Who holds the folder, written beside the lock; best effort (on a full disk it is not written, and no empty temp file is left). */
function writeHolder(dataDir: string, holder: LockHolder): void {
  const file = path.join(dataDir, HOLDER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // The lock is what guards the folder; a second instance then says "in use by another Loupe".
    fs.rmSync(tmp, { force: true });
  }
}
