/**
 * The folder's lock on a full disk (issue 23.3: "a full disk stops Loupe from starting at all: the
 * lock files need a write; a 0-byte temp file is left"). A real full filesystem (tmpfs; needs root).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataLock, DataDirInUseError } from '../../src/main/settings/data-lock.js';
import { fillDisk, mountTmpfs, unmountTmpfs } from '../helpers/small-disk.js';

describe('the data folder lock on a full disk (23.3)', () => {
  it('is taken without a write, and leaves no empty temp file; a second taker is still refused', (ctx) => {
    const dir = mountTmpfs('1m', 'full-disk lock test');
    if (!dir) return ctx.skip();
    try {
      const data = path.join(dir, 'data');
      acquireDataLock(data, { what: 'first run' }).release(); // the lock file exists, as after any earlier run
      fillDisk(path.join(dir, 'filler'));
      const lock = acquireDataLock(data, { what: 'test' });
      try {
        expect(fs.readdirSync(data).filter((f) => f.endsWith('.tmp'))).toEqual([]);
        expect(() => acquireDataLock(data, { what: 'second' })).toThrow(DataDirInUseError);
      } finally {
        lock.release();
      }
    } finally {
      unmountTmpfs(dir);
    }
  });
});
