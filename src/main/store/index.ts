/**
 * The store factory: the one place that picks adapters. Services and transports import this file
 * and ports.ts, never an adapter. By default both stores are SQLite in the data folder (one file; one
 * writer connection, on a writer thread, shared by the TraceStore and the AppStore; reads in a
 * worker pool). Given a store URL (`clickhouse://user:pass@host:8123/db`) the TraceStore is
 * ClickHouse, beside the same SQLite AppStore in the data folder (decisions 0002 and 0015).
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { openDatabase, openReadConnection } from './sqlite/open.js';
import { createSqliteAppStore } from './sqlite/app-store.js';
import { inlineWriter, startWriterThread } from './sqlite/writer.js';
import { ADAPTER as SQLITE, createSqliteTraceStore, encodeBatch as encodeSqlite, spanPacker, splitBatch as splitSqlite } from './sqlite/trace-store.js';
// The encoder only (plain functions): the ingest worker loads no ClickHouse client.
import { encodeForClickHouse } from './clickhouse/encode.js';
import { isClickHouseUrl, parseStoreUrl, redactStoreUrl } from './clickhouse/url.js';
import { StoreError, StoreUnavailableError, type AppStore, type BatchSender, type ChannelHandle, type EncodedBatch, type Stores } from './ports.js';
import { sqliteBatchSender } from './sqlite/channel-sender.js';
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
  /**
   * Where the TraceStore lives: a store URL (`clickhouse://…`, checked with parseStoreSpec), or a
   * function that reads it from the AppStore (the URL saved in Settings). Absent, null or 'sqlite':
   * the data folder's file.
   */
  traceStore?: string | null | ((app: AppStore) => Promise<string | null>);
}

/** What `--store`, $LOUPE_STORE and the Settings field accept for the local file. */
export const LOCAL_STORE = 'sqlite';

export { redactStoreUrl };

/**
 * A store spec as a user writes it → null (the data folder's SQLite file) or a checked ClickHouse URL.
 * Throws an Error naming what is wrong (never echoing the password).
 */
export function parseStoreSpec(text: string): string | null {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === LOCAL_STORE) return null;
  if (!isClickHouseUrl(t)) {
    throw new StoreError(`store ${JSON.stringify(redactStoreUrl(t))} is not a store URL: expected clickhouse://user:password@host:8123/database (clickhouses:// for TLS) or "${LOCAL_STORE}" for the data folder's file`);
  }
  parseStoreUrl(t);
  return t;
}

/** The database file of a data directory (or an explicit .db file path, or ':memory:'). */
export const databaseFile = (dataDirOrFile: string): string =>
  dataDirOrFile.endsWith('.db') || dataDirOrFile === ':memory:' ? dataDirOrFile : path.join(dataDirOrFile, DB_FILE_NAME);

/** Opens the stores of a data directory. */
export async function openStores(dataDirOrFile: string, opts: StoreOptions = {}): Promise<Stores> {
  const file = databaseFile(dataDirOrFile);
  const open = { nativeBinding: opts.nativeBinding, readonly: opts.readonly, busyTimeoutMs: opts.busyTimeoutMs };
  // One writer for the file (decision 0016): on a thread of its own, so no write transaction runs on
  // the calling thread; the AppStore and the TraceStore share it (no lock contention between them).
  // An in-memory database cannot be shared between threads: its one connection stays here.
  const memoryDb = file === ':memory:' ? openDatabase(file, open) : undefined;
  const writer = memoryDb ? inlineWriter(memoryDb, file) : await startWriterThread({ file, ...open });
  // The AppStore's reads: a read-only connection of this thread (never waits for the writer).
  const appReads = { readDb: () => memoryDb ?? openReadConnection(file, { nativeBinding: opts.nativeBinding }), closeReadDb: !memoryDb };
  // The AppStore first: the URL saved in Settings lives in it. It closes the writer unless the
  // data folder's TraceStore shares it (then that one does).
  let appOwnsWriter = true;
  const app = createSqliteAppStore(writer, file, { ownsWriter: () => appOwnsWriter, ...appReads });
  const spec = opts.traceStore;
  if (spec) {
    try {
      const text = typeof spec === 'function' ? await spec(app) : spec;
      const url = text === null ? null : parseStoreSpec(text);
      if (url) {
        const traces = await openClickHouse(url);
        // A damaged local file opened read-only: the whole Loupe refuses writes, spans included.
        if (opts.readonly) await traces.refuseWrites(true);
        let closing: Promise<void> | null = null;
        return { traces, app, close: () => (closing ??= traces.close().finally(() => app.close())) };
      }
    } catch (err) {
      await app.close();
      throw err;
    }
    // The data folder's file after all: its TraceStore shares the writer (below).
  }
  const traces = createSqliteTraceStore(writer, file, { readers: opts.readers, nativeBinding: opts.nativeBinding, memoryDb });
  appOwnsWriter = false;
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
 * The ClickHouse TraceStore (loaded on demand: a SQLite-only Loupe never loads the client). A server
 * that does not answer fails startup with the URL, password masked, in the message.
 */
async function openClickHouse(url: string): Promise<Stores['traces']> {
  const fail = (why: string) => new StoreUnavailableError(`cannot open the ClickHouse store ${redactStoreUrl(url)}: ${why.split(url).join(redactStoreUrl(url))}`);
  // First contact bounded: the client waits minutes for a request (long group-bys are legitimate), so
  // a host that swallows packets would hold startup that long. ClickHouse answers /ping without credentials.
  const base = parseStoreUrl(url).url;
  const answered = await firstAnswer(`${base}/ping`, FIRST_CONTACT_MS);
  if (answered !== true) throw fail(`${base} ${answered}`);
  const { openClickHouseTraceStore } = await import('./clickhouse/index.js');
  try {
    return await openClickHouseTraceStore(url);
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
}

/** How long startup waits for a ClickHouse server's first answer. */
const FIRST_CONTACT_MS = 10_000;

/** true once the server answers anything (status aside), else why not ("did not answer within 10 s", "ECONNREFUSED"). */
function firstAnswer(target: string, ms: number): Promise<true | string> {
  return new Promise((resolve) => {
    const req = (target.startsWith('https:') ? https : http).get(target, { timeout: ms }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => {
      resolve(`did not answer within ${ms / 1000} s`);
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/**
 * The batch encoder of an adapter (see EncodedBatch), usable on any thread: the ingest worker encodes
 * while the main thread writes the previous batch.
 */
export function batchEncoder(adapter: string): (spans: SpanRecord[]) => EncodedBatch {
  if (adapter === SQLITE) return encodeSqlite;
  if (adapter === 'clickhouse') return encodeForClickHouse;
  throw new StoreError(`no span encoder for the ${adapter} adapter`);
}

/**
 * An adapter whose batches are rows encoded one span at a time (SQLite's prepared rows): `prepare`
 * encodes a span as soon as it is normalized (so its object tree dies young, service/ingest/session.ts),
 * `batch` makes the encoded batch of such rows. Null for an adapter that encodes whole batches
 * (ClickHouse: one RowBinary buffer per table).
 */
export function spanEncoder(adapter: string): { prepare: (s: SpanRecord) => unknown; full: () => boolean; batch: (rows: unknown[]) => EncodedBatch } | null {
  if (adapter === SQLITE) return spanPacker();
  return null;
}

/**
 * Whether an adapter stores a span whose input continues an earlier call's as that call plus the rest
 * (SpanRecord.input_continues, service/ingest/history.ts); others get every span's messages whole.
 */
export function continuesInputs(adapter: string): boolean {
  return adapter === SQLITE;
}

/** An encoded batch cut into single-span batches, or null when its adapter cannot cut one. */
export function splitBatch(batch: EncodedBatch): EncodedBatch[] | null {
  return batch.adapter === SQLITE ? splitSqlite(batch) : null;
}

/**
 * The sending end of a store's batch channel (ports.ts BatchChannel), on the thread that encodes the
 * batches: at most `maxInFlight` sent batches wait to be written before `send` returns.
 */
export function openBatchSender(handle: ChannelHandle, maxInFlight: number): BatchSender {
  if (handle.adapter === SQLITE) return sqliteBatchSender(handle, maxInFlight);
  throw new StoreError(`the ${handle.adapter} adapter has no batch channel`);
}
