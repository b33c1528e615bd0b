/**
 * The TraceStore on SQLite (ports.ts). One writer connection on the calling thread: batch upserts
 * with their summaries, one transaction each. Reads go to a pool of worker threads with read-only
 * connections (read-pool.ts), so a long read never holds the thread that ingests and serves; an
 * in-memory database (or `readers: 0`) reads on the writer connection instead.
 */
import type { Db } from './open.js';
import { createIngestRepo, prepareSpan, type PreparedSpan } from './ingest.js';
import { createMetaRepo } from './meta.js';
import { createReader, type ReadMethod, type Reader } from './reader.js';
import { ReadPool } from './read-pool.js';
import { checkIntegrity } from './integrity.js';
import { createRetentionRepo } from './retention.js';
import { createSummaryMaintainer } from './summaries/index.js';
import { createSearchIndex } from './fts.js';
import { StoreAbortedError, StoreError, type EncodedBatch, type ReadOptions, type TraceStore } from '../ports.js';
import type { SpanRecord } from '../../domain/span.js';

export const ADAPTER = 'sqlite';

/** Spans in the SQLite adapter's storage form (one prepared row each), made on any thread (the ingest worker). */
export const encodeBatch = (spans: readonly SpanRecord[]): EncodedBatch => ({ adapter: ADAPTER, count: spans.length, payload: spans.map(prepareSpan) });

/** One batch per span of an encoded batch (rows are independent). */
export const splitBatch = (batch: EncodedBatch): EncodedBatch[] => (batch.payload as PreparedSpan[]).map((row) => ({ adapter: ADAPTER, count: 1, payload: [row] }));

/** Rows a streamed read yields before letting the event loop send what is ready (inline reads). */
const ROWS_PER_TICK = 64;

export interface SqliteTraceStoreOptions {
  /** Read worker threads; 0 reads on the writer connection (default 2; forced 0 for ':memory:'). */
  readers?: number;
  nativeBinding?: string;
}

export function createSqliteTraceStore(db: Db, file: string, opts: SqliteTraceStoreOptions = {}): TraceStore {
  const summaries = createSummaryMaintainer(db);
  const search = createSearchIndex(db);
  const ingest = createIngestRepo(db, summaries, search);
  const retention = createRetentionRepo(db, file, summaries, search);
  const meta = createMetaRepo(db);
  const size = file === ':memory:' ? 0 : (opts.readers ?? 2);
  const pool = size > 0 ? new ReadPool({ file, size, nativeBinding: opts.nativeBinding }) : null;
  let inline: Reader | null = null;
  const local = () => (inline ??= createReader(db, file));

  type Args<M extends ReadMethod> = Parameters<Reader[M]>;
  type Out<M extends ReadMethod> = ReturnType<Reader[M]>;
  const read = async <M extends ReadMethod>(method: M, args: Args<M>, o?: ReadOptions): Promise<Out<M>> => {
    if (o?.signal?.aborted) throw new StoreAbortedError();
    if (pool) return pool.call<Out<M>>(method, args, o?.signal);
    return (local()[method] as (...a: unknown[]) => Out<M>)(...args);
  };
  async function* stream<T>(method: ReadMethod, args: unknown[], o?: ReadOptions): AsyncGenerator<T> {
    if (o?.signal?.aborted) throw new StoreAbortedError();
    if (pool) return yield* pool.stream<T>(method, args, o?.signal);
    let n = 0;
    for (const row of (local()[method] as (...a: unknown[]) => Iterable<T>)(...args)) {
      yield row;
      if (++n % ROWS_PER_TICK === 0) {
        await new Promise((r) => setImmediate(r));
        if (o?.signal?.aborted) throw new StoreAbortedError();
      }
    }
  }

  let version: number | null = null;
  let lastRowid = 0;

  return {
    adapter: ADAPTER,
    location: file,
    writeSpans: async (spans) => ingest.writeBatch(spans),
    writeEncoded: async (batch) => {
      if (batch.adapter !== ADAPTER) throw new StoreError(`a batch encoded for the ${batch.adapter} adapter cannot be written to ${ADAPTER}`);
      return ingest.writePrepared(batch.payload as PreparedSpan[]);
    },
    traceSpans: (projectId, traceId, o) => read('traceSpans', [projectId, traceId], o),
    traceChatPage: (projectId, traceId, page, o) => read('traceChatPage', [projectId, traceId, page.offset, page.limit], o),
    conversationTurns: (q, o) => read('conversationTurns', [q], o),
    conversationTurnSpans: (projectId, conversationId, traceIds, o) => read('conversationTurnSpans', [projectId, conversationId, traceIds], o),
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
    deleteSpans: async (sel) => retention.deleteSpans(sel),
    storageStats: async () => retention.storageStats(),
    projects: (o) => read('projects', [], o),
    // On the writer connection: "the database answers" must not wait behind slow reads in the pool.
    ping: async () => meta.ping(),
    verify: async ({ full }) => {
      if (file === ':memory:') return { ok: true, problems: [], ms: 0 };
      return checkIntegrity(file, { full, nativeBinding: opts.nativeBinding });
    },
    refuseWrites: async (on) => meta.setQueryOnly(on),
    externalWrites: async () => {
      // data_version changes only when ANOTHER connection commits (never for this one's writes).
      const now = meta.dataVersion();
      if (version === null || now === version) {
        if (version === null) lastRowid = meta.lastSpanRowid();
        version = now;
        return null;
      }
      version = now;
      const projects = meta.projectsWrittenAfter(lastRowid);
      lastRowid = meta.lastSpanRowid();
      return projects;
    },
    close: async () => {
      await pool?.close();
      if (db.open) db.close();
    },
  };
}
