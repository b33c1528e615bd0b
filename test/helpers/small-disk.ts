/** A real small filesystem (tmpfs) for the full-disk tests: the only honest way to run out of disk. Needs root. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounts a tmpfs of `size` ("8m") on a new temp folder; null, with the reason printed, where mounting is not allowed. */
export function mountTmpfs(size: string, test: string): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (e) {
    console.warn(`${test} skipped: cannot mount a tmpfs here (${(e as Error).message.split('\n')[0]}); it needs root with CAP_SYS_ADMIN`);
    fs.rmdirSync(dir);
    return null;
  }
}

/** Unmounts (lazily: a failed assertion before is the error to see) and removes the folder. */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', ['-l', dir]);
  fs.rmdirSync(dir);
}

/** Writes `file` until the filesystem refuses (ENOSPC, else throws): the disk is then full to the last block. */
export function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(16 * 1024, 1));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    fs.closeSync(fd);
  }
}
