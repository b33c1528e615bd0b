/**
 * The store factory: the one place that picks adapters. Services and transports import this file
 * and ports.ts, never an adapter. Today both stores are SQLite in the data folder (one file, one
 * writer connection shared by the TraceStore and the AppStore, reads in a worker pool); a ClickHouse
 * TraceStore (issue 9) plugs in here beside the same SQLite AppStore (decision 0002).
 */
import path from 'node:path';
import { openDatabase } from './sqlite/open.js';
import { createSqliteAppStore } from './sqlite/app-store.js';
import { ADAPTER as SQLITE, createSqliteTraceStore, encodeBatch as encodeSqlite, splitBatch as splitSqlite } from './sqlite/trace-store.js';
// The encoder only (plain functions): the ingest worker loads no ClickHouse client.
import { encodeSpans as encodeClickHouse } from './clickhouse/encode.js';
import { StoreError, type EncodedBatch, type Stores } from './ports.js';
import type { SpanRecord } from '../domain/span.js';

export type { Stores };

export const DB_FILE_NAME = 'loupe.db';

export interface StoreOptions {
  /**
   * Path of a better_sqlite3.node built for another runtime (Electron has its own ABI). Under plain
   * Node this stays undefined and the addon from node_modules is used.
   */
  nativeBinding?: string;
  /** Open without migrating and refuse writes (a damaged file, opened to export what can be read). */
  readonly?: boolean;
  /** Read worker threads of the SQLite TraceStore (default 2; 0 reads on the main thread). */
  readers?: number;
  /** How long the writer waits for SQLite's lock before failing busy (default 5000 ms; the server uses less). */
  busyTimeoutMs?: number;
}

/** The database file of a data directory (or an explicit .db file path, or ':memory:'). */
export const databaseFile = (dataDirOrFile: string): string =>
  dataDirOrFile.endsWith('.db') || dataDirOrFile === ':memory:' ? dataDirOrFile : path.join(dataDirOrFile, DB_FILE_NAME);

/** Opens the stores of a data directory. */
export async function openStores(dataDirOrFile: string, opts: StoreOptions = {}): Promise<Stores> {
  const file = databaseFile(dataDirOrFile);
  const db = openDatabase(file, { nativeBinding: opts.nativeBinding, readonly: opts.readonly, busyTimeoutMs: opts.busyTimeoutMs });
  // Both stores share the writer connection: one SQLite writer per file, no lock contention between them.
  const traces = createSqliteTraceStore(db, file, { readers: opts.readers, nativeBinding: opts.nativeBinding });
  const app = createSqliteAppStore(db, file, { ownsConnection: false });
  let closing: Promise<void> | null = null;
  return {
    traces,
    app,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await traces.close();
      })()),
  };
}

/**
 * The batch encoder of an adapter (see EncodedBatch), usable on any thread: the ingest worker encodes
 * while the main thread writes the previous batch.
 */
export function batchEncoder(adapter: string): (spans: SpanRecord[]) => EncodedBatch {
  if (adapter === SQLITE) return encodeSqlite;
  if (adapter === 'clickhouse') return (spans) => ({ adapter, count: spans.length, payload: encodeClickHouse(spans) });
  throw new StoreError(`no span encoder for the ${adapter} adapter`);
}

/** An encoded batch cut into single-span batches, or null when its adapter cannot cut one. */
export function splitBatch(batch: EncodedBatch): EncodedBatch[] | null {
  return batch.adapter === SQLITE ? splitSqlite(batch) : null;
}
