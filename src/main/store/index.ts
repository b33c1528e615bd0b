/**
 * The store: the only module that knows Loupe keeps its data in SQLite. Services receive a `Store`
 * and call its per-domain repositories (write batches and the reads the operations need); none of
 * them sees a database handle, so a ClickHouse backend can implement the same interface later.
 * SQL lives in one file per domain under ./sqlite/.
 */
import path from 'node:path';
import { openDatabase, type OpenOptions } from './sqlite/open.js';
import { createIngestRepo, type IngestRepo } from './sqlite/ingest.js';
import { createChatRepo, type ChatRepo } from './sqlite/chat.js';
import { createAnalyticsRepo, type AnalyticsRepo } from './sqlite/analytics.js';
import { createSqliteAppStore } from './sqlite/app-store.js';
import type { AppStore } from './ports.js';
import { createMetaRepo, type MetaRepo } from './sqlite/meta.js';
import { createExportRepo, type ExportRepo } from './sqlite/export.js';
import { createTimelineRepo, type TimelineRepo } from './sqlite/timeline.js';
import { createConversationsRepo, type ConversationsRepo } from './sqlite/conversations.js';
import { createRetentionRepo, type RetentionRepo } from './sqlite/retention.js';
import { createSummaryMaintainer } from './sqlite/summaries/index.js';
import { createSearchIndex } from './sqlite/fts.js';

export interface Store {
  readonly ingest: IngestRepo;
  readonly chat: ChatRepo;
  readonly analytics: AnalyticsRepo;
  /** Feedback, settings and training records (the AppStore port), on the same connection. */
  readonly app: AppStore;
  readonly meta: MetaRepo;
  /** Reads of POST /export (selection → OTLP JSONL). */
  readonly exporter: ExportRepo;
  /** Reads of the trace waterfall (traces.timeline). */
  readonly timeline: TimelineRepo;
  /** The conversations list (conversations.list), from conversation summaries. */
  readonly conversations: ConversationsRepo;
  /** Deleting whole traces with exact summaries (spans.delete), and the store's size per project. */
  readonly retention: RetentionRepo;
  /** Path of the database file (for settings display and size figures). */
  readonly file: string;
  close(): void;
}

export const DB_FILE_NAME = 'loupe.db';

/** Opens the store of a data directory (or an explicit .db file path). */
export function openStore(dataDirOrFile: string, opts: OpenOptions = {}): Store {
  const file = dataDirOrFile.endsWith('.db') || dataDirOrFile === ':memory:' ? dataDirOrFile : path.join(dataDirOrFile, DB_FILE_NAME);
  const db = openDatabase(file, opts);
  const summaries = createSummaryMaintainer(db);
  const search = createSearchIndex(db);
  return {
    ingest: createIngestRepo(db, summaries, search),
    chat: createChatRepo(db),
    analytics: createAnalyticsRepo(db),
    app: createSqliteAppStore(db, file, { ownsConnection: false }),
    meta: createMetaRepo(db),
    exporter: createExportRepo(db),
    timeline: createTimelineRepo(db),
    conversations: createConversationsRepo(db),
    retention: createRetentionRepo(db, file, summaries, search),
    file,
    close: () => db.close(),
  };
}
