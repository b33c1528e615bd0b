import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { openStore, type Store } from '../../src/main/store/index.js';

/**
 * A fresh store on a real SQLite file in its own temp directory per call; every store opened
 * through the returned function is closed after each test of the calling file.
 */
export function tempStores(prefix = 'loupe-test-'): () => Store {
  const stores: Store[] = [];
  afterEach(() => stores.splice(0).forEach((s) => s.close()));
  return () => {
    const s = openStore(mkdtempSync(path.join(tmpdir(), prefix)));
    stores.push(s);
    return s;
  };
}
