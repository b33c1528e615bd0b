/**
 * The local training API key (semantics §9.1): generated on first run, stored in the data directory
 * with file mode 0600 so other local users cannot read it, printed by `loupe key`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const KEY_FILE_NAME = 'training.key';

export const keyFile = (dataDir: string) => path.join(dataDir, KEY_FILE_NAME);

/** Reads the key, creating it (0600) when absent. `wx` makes a concurrent first run keep one key. */
export function ensureTrainingKey(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = keyFile(dataDir);
  const existing = readKey(file);
  if (existing) return existing;
  const key = `loupe-${randomBytes(24).toString('base64url')}`;
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    const again = (err as NodeJS.ErrnoException).code === 'EEXIST' ? readKey(file) : null;
    if (again) return again;
    throw err;
  }
}

function readKey(file: string): string | null {
  try {
    const key = fs.readFileSync(file, 'utf8').trim();
    return key || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
