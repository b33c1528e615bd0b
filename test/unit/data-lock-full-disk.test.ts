/**
 * The folder's lock on a full disk (issue 23.3: "a full disk stops Loupe from starting at all: the
 * lock files need a write; a 0-byte temp file is left"). A real full filesystem (tmpfs; needs root).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataLock, DataDirInUseError } from '../../src/main/settings/data-lock.js';

describe('the data folder lock on a full disk (23.3)', () => {
  it('is taken without a write, and leaves no empty temp file; a second taker is still refused', (ctx) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-lock-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    } catch (e) {
      console.warn(`full-disk lock test skipped: cannot mount a tmpfs (${(e as Error).message.split('\n')[0]}); it needs root`);
      fs.rmSync(dir, { recursive: true, force: true });
      return ctx.skip();
    }
    try {
      const data = path.join(dir, 'data');
      acquireDataLock(data, { what: 'first run' }).release(); // the lock file exists, as after any earlier run
      const fd = fs.openSync(path.join(dir, 'filler'), 'w');
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(16 * 1024, 1));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
      const lock = acquireDataLock(data, { what: 'test' });
      try {
        expect(fs.readdirSync(data).filter((f) => f.endsWith('.tmp'))).toEqual([]);
        expect(() => acquireDataLock(data, { what: 'second' })).toThrow(DataDirInUseError);
      } finally {
        lock.release();
      }
    } finally {
      execFileSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
