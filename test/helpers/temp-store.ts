import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { databaseFile, openStores, type StoreOptions } from '../../src/main/store/index.js';
import type { Stores } from '../../src/main/store/ports.js';

/** Both stores of a data directory, with where their file is (tests inspect it with SQLite directly). */
export interface TestStores extends Stores {
  dir: string;
  file: string;
}

/** Opens the stores of `dir` (a fresh temp directory when omitted), the way the server does. */
export async function openTestStores(dir = mkdtempSync(path.join(tmpdir(), 'loupe-test-')), opts: StoreOptions = {}): Promise<TestStores> {
  const stores = await openStores(dir, opts);
  return Object.assign(stores, { dir, file: databaseFile(dir) });
}

/**
 * Fresh stores on a real SQLite file in their own temp directory per call; every store opened
 * through the returned function is closed after each test of the calling file.
 */
export function tempStores(prefix = 'loupe-test-', opts: StoreOptions = {}): () => Promise<TestStores> {
  const stores: TestStores[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  return () => {
    const s = openTestStores(mkdtempSync(path.join(tmpdir(), prefix)), opts);
    void s.then((x) => stores.push(x));
    return s;
  };
}
