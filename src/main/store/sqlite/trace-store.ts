/**
 * The TraceStore on SQLite (ports.ts). Writes go to the writer (writer.ts): for a database file, a
 * thread of its own owning the one writer connection — batch upserts with their summaries, one
 * transaction each, retention, the health ping — so the calling thread (the server's) only posts
 * batches and awaits their acknowledgement; ingest workers post theirs straight to it
 * (`batchChannel`). Reads go to a pool of worker threads with read-only connections (read-pool.ts),
 * so a long read never holds the thread that serves; with `readers: 0` they run on a read-only
 * connection of the calling thread (an in-memory database: on its one connection).
 */
import { openReadConnection, type Db } from './open.js';
import { PACK_DICT_AT, prepareSpan } from './ingest.js';
import { RowPacker, preparedRows, type PackedRow } from './packed-rows.js';
import { createReader, type ReadMethod, type Reader } from './reader.js';
import { ReadPool } from './read-pool.js';
import { checkIntegrity } from './integrity.js';
import { ADAPTER } from './write-side.js';
import type { Writer } from './writer.js';
import { asPortError, portErrors } from './failures.js';
import { StoreAbortedError, type EncodedBatch, type ReadOptions, type TraceStore } from '../ports.js';
import type { SpanRecord } from '../../domain/span.js';

export { ADAPTER };


/** Spans in the SQLite adapter's storage form (one prepared row each), made on any thread (the ingest worker). */
export const encodeBatch = (spans: readonly SpanRecord[]): EncodedBatch => ({ adapter: ADAPTER, count: spans.length, payload: spans.map(prepareSpan) });

/** One batch per span of an encoded batch (rows are independent). */
export const splitBatch = (batch: EncodedBatch): EncodedBatch[] => preparedRows(batch.payload).map((row) => ({ adapter: ADAPTER, count: 1, payload: [row] }));

/**
 * Bytes of packed rows after which a batch is written whatever its span count (session.ts
 * `BatchWriter.full`). A batch of 1,024 history spans packs to ~1.1 MB; spans with large texts
 * would otherwise make batches (and the memory between the ingest worker and the writer, one batch
 * in flight and one open) as large as 1,024 of them.
 */
export const MAX_BATCH_BYTES = 4 << 20;

/**
 * Spans prepared one at a time as they are normalized and packed at once into the batch's buffer
 * (packed-rows.ts), which the ingest worker transfers to the writer thread instead of cloning rows.
 * One per job: `batch` takes the rows `prepare` packed since the last batch (those dropped left out).
 */
export function spanPacker(maxBytes = MAX_BATCH_BYTES): { prepare: (s: SpanRecord) => PackedRow; full: () => boolean; batch: (rows: unknown[]) => EncodedBatch } {
  const packer = new RowPacker(PACK_DICT_AT, 64 << 10);
  return {
    prepare: (s) => packer.add(prepareSpan(s)),
    full: () => packer.bytes >= maxBytes,
    batch: (rows) => {
      const p = packer.batch(rows as PackedRow[]);
      return { adapter: ADAPTER, count: p.rows, payload: p, transfer: [p.packed] };
    },
  };
}

/** Rows a streamed read yields before letting the event loop send what is ready (inline reads). */
const ROWS_PER_TICK = 64;

export interface SqliteTraceStoreOptions {
  /** Read worker threads; 0 reads on this thread (default 2; forced 0 for ':memory:'). */
  readers?: number;
  nativeBinding?: string;
  /** The in-memory database's one connection (its reads run on it). */
  memoryDb?: Db;
}

export function createSqliteTraceStore(writer: Writer, file: string, opts: SqliteTraceStoreOptions = {}): TraceStore {
  const size = file === ':memory:' ? 0 : (opts.readers ?? 2);
  const pool = size > 0 ? new ReadPool({ file, size, nativeBinding: opts.nativeBinding }) : null;
  let inline: Reader | null = null;
  let readDb: Db | null = null;
  const local = () => (inline ??= createReader((readDb = opts.memoryDb ?? openReadConnection(file, { nativeBinding: opts.nativeBinding }))));
  const write = <T>(method: string, args: unknown[]) => writer.call<T>(`traces.${method}`, args);

  type Args<M extends ReadMethod> = Parameters<Reader[M]>;
  type Out<M extends ReadMethod> = ReturnType<Reader[M]>;
  const read = async <M extends ReadMethod>(method: M, args: Args<M>, o?: ReadOptions): Promise<Out<M>> => {
    if (o?.signal?.aborted) throw new StoreAbortedError();
    if (pool) return pool.call<Out<M>>(method, args, o?.signal);
    return portErrors(() => (local()[method] as (...a: unknown[]) => Out<M>)(...args));
  };
  async function* stream<T>(method: ReadMethod, args: unknown[], o?: ReadOptions): AsyncGenerator<T> {
    if (o?.signal?.aborted) throw new StoreAbortedError();
    if (pool) return yield* pool.stream<T>(method, args, o?.signal);
    let n = 0;
    try {
      for (const row of (local()[method] as (...a: unknown[]) => Iterable<T>)(...args)) {
        yield row;
        if (++n % ROWS_PER_TICK === 0) {
          await new Promise((r) => setImmediate(r));
          if (o?.signal?.aborted) throw new StoreAbortedError();
        }
      }
    } catch (e) {
      throw asPortError(e);
    }
  }

  return {
    adapter: ADAPTER,
    location: file,
    capabilities: {
      // A common word is walked in the page's order and counted as far as the walk went (conversations.ts).
      searchCounts: 'lower_bound_when_common',
      searchConditions: 'exact',
      // better-sqlite3 cannot interrupt a statement: a pool worker running one is terminated (read-pool.ts).
      cancelsRunningReads: pool !== null,
    },
    // Spans are encoded (compressed) on the writer thread: this thread only posts them.
    writeSpans: (spans) => write('writeSpans', [spans]),
    writeEncoded: (batch) => write('writeEncoded', [batch]),
    ...(writer.channel ? { batchChannel: (onProgress?: (p: { spans: number; rawBytes: number }) => void) => writer.channel!(onProgress) } : {}),
    traceSpans: (projectId, traceId, o) => read('traceSpans', [projectId, traceId], o),
    traceChatPage: (projectId, traceId, page, o) => read('traceChatPage', [projectId, traceId, page.offset, page.limit], o),
    conversationTurns: (q, o) => read('conversationTurns', [q], o),
    conversationTurnSpans: (projectId, conversationId, traceIds, o) => read('conversationTurnSpans', [projectId, conversationId, traceIds], o),
    conversationsTurnIds: (projectId, conversationIds, o) => read('conversationsTurnIds', [projectId, conversationIds], o),
    turnsSpans: (projectId, turns, o) => read('turnsSpans', [projectId, turns], o),
    turnsFacts: (projectId, turns, o) => read('turnsFacts', [projectId, turns], o),
    conversations: (plan, o) => read('conversations', [plan], o),
    conversationFacets: (projectId, o) => read('conversationFacets', [projectId], o),
    agents: (plan, o) => read('agents', [plan], o),
    listSpans: (plan, o) => read('listSpans', [plan], o),
    groupSpans: (plan, o) => read('groupSpans', [plan], o),
    threads: (plan, o) => stream('threads', [plan], o),
    timeline: (projectId, traceId, o) => read('timeline', [projectId, traceId], o),
    search: (q, o) => read('search', [q], o),
    exportTraceIds: (sel, o) => read('exportTraceIds', [sel], o),
    exportTraceSpans: (projectId, traceId, o) => read('exportTraceSpans', [projectId, traceId], o),
    // Deletes write (the writer connection); the size figures read page counts of the writer's file.
    deleteSpans: (sel) => write('deleteSpans', [sel]),
    storageStats: () => write('storageStats', []),
    projects: (o) => read('projects', [], o),
    writeScores: (rows) => write('writeScores', [rows]),
    deleteScores: (projectId, ids) => write('deleteScores', [projectId, ids]),
    queryScores: (q, o) => read('queryScores', [q], o),
    scoreStats: (q, o) => read('scoreStats', [q], o),
    scoreValues: (projectId, name, limit, o) => read('scoreValues', [projectId, name, limit], o),
    scoreGroups: (q, o) => read('scoreGroups', [q], o),
    // On the writer: "the database answers" must not wait behind slow reads in the pool (it waits
    // at most for the write transaction in progress).
    ping: () => write('ping', []),
    verify: async ({ full }) => {
      if (file === ':memory:') return { ok: true, problems: [], ms: 0 };
      return checkIntegrity(file, { full, nativeBinding: opts.nativeBinding });
    },
    refuseWrites: (on) => write('refuseWrites', [on]),
    // On the writer connection: data_version changes only when ANOTHER connection commits.
    externalWrites: () => write('externalWrites', []),
    close: async () => {
      await pool?.close();
      if (readDb && readDb !== opts.memoryDb && readDb.open) readDb.close();
      await writer.close();
    },
  };
}
