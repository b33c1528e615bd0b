/**
 * Everything that writes the database file (or must run on the writing connection), synchronous,
 * over the one writer connection: span batches with their summaries, retention, the app's records
 * (feedback, settings, training), the health ping, read-only mode, and the watch for other
 * processes' writes (`data_version` only tells a connection about OTHER connections' commits, so it
 * must be asked on the writing one). The writer thread (write-worker.ts) runs this; an in-memory
 * database runs it on the calling thread (writer.ts).
 */
import type { Db } from './open.js';
import { createIngestRepo, type PreparedSpan, type WriteResult } from './ingest.js';
import { createMetaRepo } from './meta.js';
import { preparedRows } from './packed-rows.js';
import { createRetentionRepo } from './retention.js';
import { createSummaryMaintainer } from './summaries/index.js';
import { createSearchIndex } from './fts.js';
import { createAppRepos } from './app-repos.js';
import { keepWalSmall, WAL_POLICY } from './wal.js';
import { createScoresWriter } from './scores.js';
import { isSqliteStoreFailure as isStoreFailure } from './failures.js';
import { errorMessage } from '../../../shared/errors.js';
import { StoreError, type ChannelTotals, type DeleteSelection, type EncodedBatch } from '../ports.js';
import type { ChannelMessage } from './write-protocol.js';
import type { SpanRecord } from '../../domain/span.js';

export const ADAPTER = 'sqlite';

/** A method of the write side: plain data in, plain data out (it may run on another thread). */
export type WriteMethod = (...args: never[]) => unknown;

/** An ingest job's batches written in arrival order (see BatchChannel in ports.ts). */
export interface ChannelJob {
  /** Writes one message of the job; returns the totals on `end`. Throws the store failure that stops the job. */
  take(msg: ChannelMessage): ChannelTotals | null;
  /** Spans stored so far (for progress). */
  readonly spans: number;
}

export interface WriteSide {
  /** `traces.<method>`, `app.<group>.<method>`: what the writer answers calls with. */
  readonly methods: Record<string, WriteMethod>;
  /**
   * The writes of one ingest job (its channel's messages). `group` > 1 (the bulk path): up to that many batches
   * are written in one transaction, the rollup layer recomputed once for them; `settle` commits an open group.
   */
  channelJob(opts?: { group?: number }): ChannelJob;
  /**
   * Commits the bulk path's open group, if any: before any other write (a call, another job's batch), at a job's
   * end, and when no batch came for a while (the caller's timer). A batch is written when taken, committed here.
   */
  settle(): void;
  /** Whether a group is open (written, not committed). */
  inGroup(): boolean;
  /** After each message the writer handled: keeps the WAL within its policy (wal.ts). */
  afterWrite(): void;
  close(): void;
}

export function createWriteSide(db: Db, file: string): WriteSide {
  const summaries = createSummaryMaintainer(db);
  const search = createSearchIndex(db);
  const ingest = createIngestRepo(db, summaries, search);
  const retention = createRetentionRepo(db, file, summaries, search);
  const meta = createMetaRepo(db);
  const app = createAppRepos(db);
  // An in-memory or read-only database has no WAL of this connection to keep.
  const wal = file === ':memory:' || db.readonly ? null : keepWalSmall(db, file, WAL_POLICY, (m) => console.error(`loupe: ${m}`));
  const scores = createScoresWriter(db);

  let version: number | null = null;
  let lastRowid = 0;
  const rowsOf = (batch: EncodedBatch): PreparedSpan[] => {
    if (batch.adapter !== ADAPTER) throw new StoreError(`a batch encoded for the ${batch.adapter} adapter cannot be written to ${ADAPTER}`);
    return preparedRows(batch.payload);
  };

  const methods: Record<string, WriteMethod> = {
    'traces.writeSpans': (spans: SpanRecord[]) => ingest.writeBatch(spans),
    'traces.writeEncoded': (batch: EncodedBatch) => ingest.writePrepared(rowsOf(batch)),
    'traces.deleteSpans': (sel: DeleteSelection) => retention.deleteSpans(sel),
    'traces.storageStats': () => retention.storageStats(),
    'traces.ping': () => meta.ping(),
    'traces.writeScores': (rows: Parameters<typeof scores.writeScores>[0]) => scores.writeScores(rows),
    'traces.deleteScores': (projectId: string, ids: string[]) => scores.deleteScores(projectId, ids),
    'traces.refuseWrites': (on: boolean) => meta.setQueryOnly(on),
    'traces.externalWrites': (): string[] | null => {
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
    'app.ping': () => app.ping(),
  };
  for (const [group, repo] of Object.entries({ feedback: app.feedback, settings: app.settings, training: app.training, datasetVersions: app.datasetVersions })) {
    for (const [name, fn] of Object.entries(repo)) if (typeof fn === 'function') methods[`app.${group}.${name}`] = fn as WriteMethod;
  }

  /** The bulk path's open group: its job's pending counts, the batches to write again if it is rolled back. */
  let open: { job: object; msgs: { rows: () => PreparedSpan[]; lines: (number | null)[] }[]; results: WriteResult[]; count: (r: WriteResult) => void } | null = null;
  const rollbackGroup = (): void => {
    if (db.inTransaction) db.exec('ROLLBACK');
    summaries.endGroup?.(false);
    ingest.forgetIds();
    open = null;
  };
  const settle = (): void => {
    if (!open) return;
    const g = open;
    try {
      summaries.endGroup?.();
      db.exec('COMMIT');
    } catch (e) {
      rollbackGroup();
      throw e;
    }
    open = null;
    for (const r of g.results) g.count(r);
  };

  /** The writes of one ingest job: a refused batch is cut span by span, row-level refusals are listed. */
  const channelJob = (opts: { group?: number } = {}): ChannelJob => {
    const group = opts.group ?? 1;
    const self = {};
    const totals: ChannelTotals = { inserted: 0, replaced: 0, projects: [], rejected: [] };
    const projects = new Set<string>();
    const count = (r: WriteResult) => {
      totals.inserted += r.inserted;
      totals.replaced += r.replaced;
      for (const t of r.touched) projects.add(t.project_id);
    };
    const write = (rows: PreparedSpan[], lines: (number | null)[]) => {
      const refuse = (i: number, e: unknown) => totals.rejected.push({ line: lines[i] ?? null, message: `span could not be stored (${errorMessage(e)})` });
      try {
        return count(ingest.writePrepared(rows));
      } catch (e) {
        if (isStoreFailure(e)) throw e;
        if (rows.length === 1) return refuse(0, e);
      }
      rows.forEach((row, i) => {
        try {
          count(ingest.writePrepared([row]));
        } catch (e) {
          if (isStoreFailure(e)) throw e;
          refuse(i, e);
        }
      });
    };
    return {
      take(msg) {
        if (open && open.job !== self) settle();
        if (msg.type === 'end') {
          settle();
          return { ...totals, projects: [...projects].sort() };
        }
        if (group <= 1) {
          write(rowsOf(msg.batch), msg.lines);
          return null;
        }
        const batch = msg.batch;
        const item = { rows: () => rowsOf(batch), lines: msg.lines };
        if (!open) {
          db.exec('BEGIN');
          summaries.beginGroup?.();
          open = { job: self, msgs: [], results: [], count };
        }
        try {
          open.results.push(ingest.writeInOpen(item.rows()));
          open.msgs.push(item);
        } catch (e) {
          const again = [...open.msgs, item];
          rollbackGroup();
          if (isStoreFailure(e)) throw e;
          // A span refused: the group's batches written again one transaction each, as without the bulk path.
          for (const m of again) write(m.rows(), m.lines);
          return null;
        }
        if (open.msgs.length >= group) settle();
        return null;
      },
      get spans() {
        return totals.inserted + totals.replaced;
      },
    };
  };

  return {
    methods,
    channelJob,
    settle,
    inGroup: () => open !== null,
    // The WAL is kept between transactions: not while a group is open.
    afterWrite: () => (open ? undefined : wal?.afterWrite()),
    close: () => {
      settle();
      wal?.stop();
      if (db.open) db.close();
    },
  };
}
