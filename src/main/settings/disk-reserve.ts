/**
 * A little room kept back in the data folder for a start on a full disk (issue 23.3).
 *
 * SQLite cannot read a WAL-mode database without its shared-memory index (`loupe.db-shm`, 32 KiB per
 * 4,096 WAL frames). A clean close deletes that file, so the next start has to create it, and on a
 * disk with no free block that fails (SQLITE_IOERR_SHMSIZE): no start at all, not even to read. The
 * ways around it in SQLite itself (`?immutable=1`, another VFS) need URI filenames, which this build
 * of better-sqlite3 has off, and `locking_mode=EXCLUSIVE` would allow one connection where the server
 * has a writer, an AppStore reader and read workers. So Loupe keeps a 1 MiB file of real (not sparse)
 * bytes beside the database while it has room, and a start that finds the disk full deletes it: the
 * index fits in what it gave back (1 MiB holds the index of a 2 GiB WAL of 16 KiB pages) and Loupe
 * starts read-only. The next start with room writes the reserve again.
 */
import fs from 'node:fs';
import path from 'node:path';

export const RESERVE_FILE = 'loupe.reserve';
export const RESERVE_BYTES = 1024 * 1024;

const reservePath = (dataDir: string) => path.join(dataDir, RESERVE_FILE);

/**
 * Makes sure the reserve is there, whole. Best effort: on a disk without 1 MiB to spare it writes
 * nothing (a partial file is removed: it would be taken for the whole reserve) and says so.
 */
export function keepReserve(dataDir: string, log?: (line: string) => void): boolean {
  const file = reservePath(dataDir);
  try {
    if (fs.statSync(file).size >= RESERVE_BYTES) return true;
  } catch {
    // missing: written below
  }
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'w', 0o600);
    // Real bytes, written: a sparse file (ftruncate) would give nothing back when deleted.
    const block = Buffer.alloc(64 * 1024);
    for (let at = 0; at < RESERVE_BYTES; at += block.length) {
      // A short write is a disk that just ran out of room (the next one would fail ENOSPC).
      if (fs.writeSync(fd, block, 0, block.length, at) < block.length) throw new Error('no space left on device (short write)');
    }
    fs.fsyncSync(fd);
    return true;
  } catch (e) {
    fs.rmSync(file, { force: true });
    log?.(`could not keep ${RESERVE_BYTES / 1024 / 1024} MiB in reserve at ${file} (${(e as Error).message}); a start on a full disk may then be refused`);
    return false;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** Deletes the reserve; the bytes it gave back (0 when there was none). */
export function releaseReserve(dataDir: string): number {
  const file = reservePath(dataDir);
  try {
    const size = fs.statSync(file).size;
    fs.rmSync(file);
    return size;
  } catch {
    return 0;
  }
}

