/**
 * The data folder is for its user alone (issue 13.4): the database holds every trace (prompts,
 * answers, tool results) and the training key opens the keyed API. They were 0644 in a 0755 folder,
 * so any local account could copy them. Now:
 *
 * - the folder is created 0700, and an existing Loupe folder (one holding loupe.db, or empty) is
 *   tightened to 0700; a folder that holds other things (a --data-dir pointed at a checkout) is left as
 *   it is, with a warning, because changing the mode of a folder the user made is not ours to do;
 * - the database is created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
 *   database's mode), and Loupe's own files found wider are tightened to 0600.
 *
 * POSIX only: on Windows the folder under %APPDATA% is already private to the user (chmod is a no-op).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Loupe's files in a data folder (the database and its WAL/SHM, the key, the lock and its holder). */
const PRIVATE_FILES = ['loupe.db', 'loupe.db-wal', 'loupe.db-shm', 'training.key', 'loupe.lock', 'loupe.lock.json', 'secrets.json'];

/** Makes the data folder and Loupe's files in it private; returns warnings worth printing. */
export function securePrivateFiles(dataDir: string, dbFile = 'loupe.db'): string[] {
  if (process.platform === 'win32') {
    fs.mkdirSync(dataDir, { recursive: true });
    return [];
  }
  const warnings: string[] = [];
  const existed = fs.existsSync(dataDir);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  if (mode & 0o077) {
    const entries = fs.readdirSync(dataDir);
    const ours = !existed || entries.length === 0 || entries.includes(dbFile) || entries.every((e) => PRIVATE_FILES.includes(e) || e.startsWith('loupe.'));
    if (ours) fs.chmodSync(dataDir, 0o700);
    else warnings.push(`data folder ${dataDir} is readable by other users (mode ${mode.toString(8)}); Loupe's own files in it are made private (0600)`);
  }
  const db = path.join(dataDir, dbFile);
  if (!fs.existsSync(db)) fs.closeSync(fs.openSync(db, 'a', 0o600));
  for (const name of PRIVATE_FILES) {
    const file = path.join(dataDir, name);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st?.isFile() && st.mode & 0o077) fs.chmodSync(file, 0o600);
  }
  return warnings;
}
