/**
 * The store port: what Loupe's services need from storage, and nothing about how a backend keeps it.
 *
 * - `TraceStore` holds everything recorded about spans (writes, chat reads, analytics, timeline,
 *   export, search, retention). Adapters: SQLite (store/sqlite/, the embedded default) and
 *   ClickHouse (store/clickhouse/, for teams).
 * - `AppStore` holds the app's own records (feedback, settings, training). It always lives in the
 *   local data folder on SQLite, even when the TraceStore is ClickHouse: training checkpoints are
 *   files in that folder and their rows must stay next to them (docs/decisions).
 *
 * Everything is async (a read may run on a worker thread or another machine). Reads take an
 * optional AbortSignal: when it fires the adapter stops the work if it can and rejects with
 * `StoreAbortedError`. Results are typed from the contract (src/shared/contract/) wherever the
 * contract has the shape; plans come from domain/plans.ts. Services and transports import this
 * file and the factory in store/index.ts, never an adapter.
 */
import type { z } from 'zod';
import type { AgentSummary, GroupRow, SpanRow, Thread } from '../../shared/contract/analytics.js';
import type { FeedbackRecord } from '../../shared/contract/common.js';
import type { ConversationTotals } from '../../shared/contract/chat.js';
import type { TimelineColumns } from '../../shared/contract/timeline.js';
import type { SpanRecord } from '../domain/span.js';
import type { ChatSpan } from '../domain/chat/span.js';
import type { TurnFacts } from '../domain/evals/turn-facts.js';
import type { TraceChatPage } from '../domain/chat/page.js';
import type { TargetKind } from '../domain/refs.js';
import type { AgentsPlan, ConversationRow, ConversationsPlan, SpansGroupPlan, SpansListPlan, ThreadsPlan } from '../domain/plans.js';
import type { ConversationKey } from '../domain/conversation-order.js';
import type { ScoreRecord, ScoresQuery, ScoreStat, ScoreStatsBy } from '../domain/scores.js';
import type { ScoreGroup, ScoreGroupsQuery } from '../domain/score-groups.js';

export interface ReadOptions {
  /** Fires when the caller no longer wants the answer (HTTP client gone, IPC call cancelled). */
  signal?: AbortSignal;
}

// ================================================================ errors the transports map

/** Base of the errors a store raises on purpose; anything else is a bug (500). */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** The store cannot take this request now (writer locked, read pool saturated); retry later (503). */
export class StoreBusyError extends StoreError {
  override name = 'StoreBusyError';
  constructor(message: string, readonly retryAfterSeconds = 1) {
    super(message);
  }
}

/** The disk or the store's size cap is full; nothing of the request was stored (503). */
export class StoreFullError extends StoreError {
  override name = 'StoreFullError';
  constructor(message: string, readonly retryAfterSeconds = 60) {
    super(message);
  }
}

/** The store refuses writes (its file was found damaged and opened read-only); reads still answer (503). */
export class StoreReadOnlyError extends StoreError {
  override name = 'StoreReadOnlyError';
  constructor(message: string, readonly retryAfterSeconds = 300) {
    super(message);
  }
}

/** The store's data is damaged where this request met it; nothing of the request was stored (503). */
export class StoreDamagedError extends StoreError {
  override name = 'StoreDamagedError';
  constructor(message: string, readonly retryAfterSeconds = 300) {
    super(message);
  }
}

/** A remote store (ClickHouse) does not answer; retry later (503). */
export class StoreUnavailableError extends StoreError {
  override name = 'StoreUnavailableError';
  constructor(message: string, readonly retryAfterSeconds = 5) {
    super(message);
  }
}

/** The read's AbortSignal fired; nobody is waiting for the answer. */
export class StoreAbortedError extends StoreError {
  override name = 'AbortError';
  constructor(message = 'read cancelled by the caller') {
    super(message);
  }
}

// ================================================================ trace store: shapes

/** Outcome of one batch write. */
export interface WriteResult {
  /** Spans whose (project, trace, span) key was new. */
  inserted: number;
  /** Spans that replaced a stored span with the same key (re-import). */
  replaced: number;
  /** (project, trace) pairs touched, so live views can refresh just those. */
  touched: { project_id: string; trace_id: string }[];
}

/**
 * A batch of spans already encoded for one adapter, made by `batchEncoder(adapter)` (store/index.ts)
 * on another thread (the ingest worker) so the writing thread does less. Opaque outside the adapter
 * that made it; a store refuses a batch made for another. `splitBatch` (store/index.ts) cuts one
 * into single-span batches where the adapter can, so a refused batch is retried span by span.
 */
export interface EncodedBatch {
  readonly adapter: string;
  readonly count: number;
  readonly payload: unknown;
  /** Buffers of `payload` that a thread posting the batch may transfer instead of copying (it must not use them after). */
  readonly transfer?: readonly ArrayBuffer[];
}

/**
 * A way for batches encoded on another thread to reach the store's writer without passing through
 * the calling thread (`TraceStore.batchChannel`, where the adapter writes on a thread of its own).
 * The caller hands `handle` to the thread that encodes the batches (transferring `handle.transfer`
 * with it); there `openBatchSender(handle, maxInFlight)` (store/index.ts) sends the batches, then
 * `end`. Each batch is one transaction; a batch refused for a row-level reason is retried span by
 * span (refused spans are listed with their line), as `writeEncoded` callers do. How the sender
 * waits for the writes (backpressure) is the adapter's business.
 */
export interface BatchChannel {
  /** The sender's end: opaque outside the adapter; pass it whole, transfer `transfer` with it. */
  readonly handle: ChannelHandle;
  /**
   * Settles after `end`, once every batch before it is written (committed: a span counted here is
   * stored). Rejects with the store failure (busy, full, read-only, ...) that stopped the writes;
   * batches after a failure are not written, and the sender's next `send` throws ChannelStoppedError.
   */
  readonly written: Promise<ChannelTotals>;
  /** Stops taking batches (the import was cancelled): the sender's next `send` throws, `written` rejects if it has not settled. */
  close(): void;
}

export interface ChannelHandle {
  readonly adapter: string;
  /** What must be transferred (not copied) with the handle to the sending thread. */
  readonly transfer: readonly import('node:worker_threads').TransferListItem[];
  readonly payload: unknown;
}

/** One batch into a channel, with the input line of each of its spans and the input bytes read so far. */
export interface ChannelBatch {
  batch: EncodedBatch;
  lines: (number | null)[];
  rawBytes: number;
}

/** The sending thread's end of a BatchChannel. */
export interface BatchSender {
  /**
   * Sends a batch; returns once at most `maxInFlight` sent batches wait to be written (it blocks the
   * thread meanwhile: the sender's reader is synchronous). Throws ChannelStoppedError once the
   * channel stopped (closed, or the store stopped writing).
   */
  send(b: ChannelBatch): void;
  /** No more batches; `written` settles once those sent are written. */
  end(): void;
}

/** The channel stopped taking batches (cancelled, or the store stopped writing): the sender stops. */
export class ChannelStoppedError extends StoreError {
  override name = 'ChannelStoppedError';
}

export interface ChannelTotals {
  inserted: number;
  replaced: number;
  projects: string[];
  /** Spans the store refused (row-level), with the input line they came from when known. */
  rejected: { line: number | null; message: string }[];
}

/** A turn to read with TraceStore.turnsSpans: a trace and the conversation whose turn it is (null: the whole trace). */
export interface TurnRef {
  trace_id: string;
  conversation_id: string | null;
}

/** A conversation's turns (TraceStore.conversationsTurnIds), oldest first. */
export interface ConversationTurnIds {
  conversation_id: string;
  trace_ids: string[];
}

/** A page of a conversation's turns (newest first, by turn start then trace id, both descending). */
export interface TurnPage {
  /** Trace ids of the page's turns, newest first. */
  trace_ids: string[];
  /** Turns of the whole conversation. */
  total_turns: number;
  /** Sum of the turn costs of the whole conversation; null when no turn has a cost. */
  total_cost_usd: number | null;
  /** The whole conversation's totals: its conversations-list row (null for an unknown conversation). */
  totals: z.output<typeof ConversationTotals> | null;
  /** The title of that row (domain/conversation-row.ts rowTitle, as the list gives it); null for an unknown conversation. */
  title: string | null;
}

/** Which traces `POST /export` writes. */
export interface ExportSelection {
  project_id: string;
  /** Traces holding at least one span of these conversations. */
  conversation_ids?: string[];
  trace_ids?: string[];
}

/** One span of an export, as received. */
export interface ExportSpan {
  scope_name: string | null;
  scope_version: string | null;
  /**
   * The span's resource attributes as JSON text of a flat map. Spans of one resource carry the same
   * text, so the exporter can group them into one ResourceSpans by comparing texts.
   */
  resource_attributes: string;
  /** The span as received, OTLP JSON text. */
  raw_span: string;
}

/** One full-text match (the same meaning as `$search`). */
export interface SearchHit {
  project_id: string;
  trace_id: string;
  span_id: string;
  conversation_id: string | null;
  /** A short excerpt of the matched text around the first match. */
  snippet: string;
}

export interface SearchQuery {
  project_id: string;
  /** Trimmed, non-empty; matched as a case-insensitive substring. */
  text: string;
  limit: number;
}

/**
 * Spans to delete. Summaries (agents, conversations, threads, trace headers) stay exact: a trace
 * loses all its spans or none, and the summaries of what was touched are recomputed.
 */
export type DeleteSelection =
  | { kind: 'project'; project_id: string }
  | { kind: 'traces'; project_id: string; trace_ids: string[] }
  /** Traces whose last span started before this instant (ns), in one project or all. */
  | { kind: 'older_than'; project_id: string | null; before_ns: bigint }
  /** Oldest traces first until the store's file is at most this many bytes. */
  | { kind: 'size_cap'; max_bytes: number };

export interface DeleteResult {
  deleted_spans: number;
  deleted_traces: number;
  /** Projects that lost spans (for data.changed). */
  projects: string[];
  /** Bytes the store occupies after the delete (and whatever compaction it runs). */
  store_bytes: number;
}

export interface StorageStats {
  /** Bytes the whole store occupies (file plus WAL for SQLite). */
  total_bytes: number;
  /** Per project: spans and an estimate of the bytes they occupy (shares of the total by stored size). */
  projects: { project_id: string; span_count: number; bytes: number }[];
}

export type ProjectRow = { project_id: string; span_count: number; last_activity: string | null };

/** A page of the conversations list. */
export interface ConversationsPage {
  conversations: ConversationRow[];
  /** Rows matching the plan's filters and search (every page, not only this one). */
  total_count: number;
  /** False when total_count is a lower bound (only where `capabilities.searchCounts` says it may be). */
  total_exact: boolean;
  /** The key of the page's last row when more rows follow (the next page starts after it); else null. */
  next: ConversationKey | null;
}

/**
 * What an adapter answers exactly and what it does not, declared so the service labels or refuses
 * instead of letting an answer narrow silently (issue 19 item 4).
 */
export interface TraceStoreCapabilities {
  /**
   * The conversations list's total for a search: 'exact' always, or 'lower_bound_when_common' (a word
   * found in very many traces is counted only as far as the page needed; the answer says so).
   */
  searchCounts: 'exact' | 'lower_bound_when_common';
  /**
   * `$search` inside a spans-query condition: 'exact' (the rule of domain/search-text.ts), or
   * 'superset' (messages matched as their stored JSON text, so words of its structure — keys, roles,
   * part types — match too; the answer is labelled).
   */
  searchConditions: 'exact' | 'superset';
  /** A running read stops when its signal fires (else it runs to its end and the answer is dropped). */
  cancelsRunningReads: boolean;
}

export type SpanRowOut = z.output<typeof SpanRow>;
export type GroupRowOut = z.output<typeof GroupRow>;
export type AgentRowOut = z.output<typeof AgentSummary>;
export type ThreadRowOut = z.output<typeof Thread>;

// ================================================================ trace store

export interface TraceStore {
  /** 'sqlite' | 'clickhouse': names the adapter (EncodedBatch.adapter, logs, settings). */
  readonly adapter: string;
  /** Where the data is, for Settings: a file path, or a URL without credentials. */
  readonly location: string;
  /** What this adapter answers exactly (the service labels or refuses the rest). */
  readonly capabilities: TraceStoreCapabilities;
  /**
   * Spans per write this adapter does best with, when it differs from the callers' defaults (tuned for
   * SQLite's short write transactions): a ClickHouse write is a dozen round trips whatever its size.
   */
  readonly writeBatchSpans?: number;

  // ---- writes (one writer; each call atomic and idempotent by (project, trace, span))

  /** Upserts a batch: either all of it is stored (summaries included) or none. */
  writeSpans(spans: SpanRecord[]): Promise<WriteResult>;
  /**
   * The same for a batch encoded on another thread (see EncodedBatch), for bulk writes (imports, OTLP
   * bodies). An adapter with `settled` may answer once the spans are stored and write the batch's
   * summaries after, in the background (ClickHouse): callers that read summaries next wait for `settled()`.
   */
  writeEncoded(batch: EncodedBatch): Promise<WriteResult>;
  /**
   * Resolves when the summaries of every batch written so far are written; rejects with the failure
   * that stopped them (the adapter retries them later). Absent: every write includes its summaries.
   */
  settled?(): Promise<void>;
  /** Batches whose spans are stored and whose summaries are still being written (health). */
  summarizing?(): number;
  /**
   * Where the adapter writes on a thread of its own: a channel for an ingest worker's batches, so
   * they never cross the calling thread (see BatchChannel). Absent: post batches to the calling
   * thread and use `writeEncoded`.
   */
  batchChannel?(onProgress?: (p: { spans: number; rawBytes: number }) => void): BatchChannel;

  // ---- chat views (semantics §4)

  /** Every span of a trace, light and heavy fields the chat walk reads; [] for an unknown trace. */
  traceSpans(projectId: string, traceId: string, opts?: ReadOptions): Promise<ChatSpan[]>;
  /**
   * One page of the trace's chat: the header and messages [offset, offset + limit) of the walk
   * (domain/chat/page.ts), walked no further than needed; an adapter that can load heavy fields lazily
   * reads only the spans the page needs (decision 0011).
   */
  traceChatPage(projectId: string, traceId: string, page: { offset: number; limit: number }, opts?: ReadOptions): Promise<TraceChatPage>;
  /** A page of a conversation's turns with its turn count and total cost. */
  conversationTurns(
    q: { project_id: string; conversation_id: string; limit: number; offset: number },
    opts?: ReadOptions,
  ): Promise<TurnPage>;
  /**
   * The spans of several turns of one conversation in one call: for each trace id (same order),
   * its spans that belong to the conversation: untagged or tagged with this conversation (§4.1).
   */
  conversationTurnSpans(projectId: string, conversationId: string, traceIds: readonly string[], opts?: ReadOptions): Promise<ChatSpan[][]>;
  /**
   * The turns of many conversations in one read (issue 20: scorers and failure signatures walk every
   * turn): the conversations asked that have turns, in the order asked, each with its trace ids, oldest
   * turn first (the reverse of conversationTurns' order). An array (not a Map): it crosses the SQLite
   * read pool's thread boundary, where an iterable answer is taken for a stream of rows.
   */
  conversationsTurnIds(projectId: string, conversationIds: readonly string[], opts?: ReadOptions): Promise<ConversationTurnIds[]>;
  /**
   * The spans of many turns in one read, for each ref in the order asked: a turn's spans (those of the
   * trace credited to its conversation, as conversationTurnSpans), or every span of a bare trace
   * (conversation_id null, as traceSpans). Unknown traces are [].
   */
  turnsSpans(projectId: string, turns: readonly TurnRef[], opts?: ReadOptions): Promise<ChatSpan[][]>;
  /**
   * What scorers and failure signatures read of many turns (domain/evals/turn-facts.ts), for each ref in
   * the order asked: turnFacts of turnsSpans' answer, null for a ref without spans. Computed beside the
   * read (SQLite: in the read worker), so a turn's spans — its messages, most of their bytes history —
   * never cross a thread: a rule scorer's run pays the read and the walk, not their copy.
   */
  turnsFacts(projectId: string, turns: readonly TurnRef[], opts?: ReadOptions): Promise<(TurnFacts | null)[]>;

  // ---- lists and analytics (plans are validated by the service; adapters only compile them)

  /** The conversations list (issue 8 item 3), read from per-conversation summaries: one page in the plan's order. */
  conversations(plan: ConversationsPlan, opts?: ReadOptions): Promise<ConversationsPage>;
  /** The list's filter choices: every agent and request model of a project, sorted. */
  conversationFacets(projectId: string, opts?: ReadOptions): Promise<{ agent_names: string[]; request_models: string[] }>;
  /** Agents with their totals (semantics §6), read from per-agent summaries. */
  agents(plan: AgentsPlan, opts?: ReadOptions): Promise<{ agents: AgentRowOut[]; total_count: number }>;
  /** Spans query, list mode (semantics §7). */
  listSpans(plan: SpansListPlan, opts?: ReadOptions): Promise<{ spans: SpanRowOut[]; total_count: number }>;
  /** Spans query, group mode (semantics §7), with distributions and conversation previews. */
  groupSpans(plan: SpansGroupPlan, opts?: ReadOptions): Promise<{ groups: GroupRowOut[]; total_count: number }>;
  /**
   * Threads (semantics §5), yielded as they are computed so the first lines can leave early.
   * Breaking out of the iteration (or the signal) stops the read.
   */
  threads(plan: ThreadsPlan, opts?: ReadOptions): AsyncIterable<ThreadRowOut>;
  /**
   * Every span of one trace for the waterfall, light columns only, in the contract's columnar form,
   * ordered by start (spans without one last) then span_id. start_us/end_us are µs since the
   * epoch here (the service re-bases them on the trace's first start).
   */
  timeline(projectId: string, traceId: string, opts?: ReadOptions): Promise<z.output<typeof TimelineColumns>>;
  /** Full-text search over message texts and attribute values, best matches first. */
  search(q: SearchQuery, opts?: ReadOptions): Promise<SearchHit[]>;

  // ---- export (POST /export): one trace at a time, so no read stays open while a response streams

  /** Trace ids of a selection, ascending. */
  exportTraceIds(sel: ExportSelection, opts?: ReadOptions): Promise<string[]>;
  /** Spans of one trace as received, by start then span id. */
  exportTraceSpans(projectId: string, traceId: string, opts?: ReadOptions): Promise<ExportSpan[]>;

  // ---- scores (issue 20, decision 0024): shared with the spans, so a team sees everyone's

  /** Upserts scores by (project_id, score_id): a re-run scorer or a changed label replaces its row. */
  writeScores(scores: ScoreRecord[]): Promise<void>;
  /** Deletes scores of a project by id; returns how many there were. */
  deleteScores(projectId: string, scoreIds: readonly string[]): Promise<number>;
  /** A page of scores, newest first (created_at desc, score_id desc), at most `limit` rows after `after`. */
  queryScores(q: ScoresQuery, opts?: ReadOptions): Promise<ScoreRecord[]>;
  /** Per key (agent, conversations-list row or trace) and score name: count, mean, label counts. */
  scoreStats(q: { project_id: string; by: ScoreStatsBy; keys: string[] | null; names: string[] | null }, opts?: ReadOptions): Promise<ScoreStat[]>;
  /** The distinct (value, label) pairs of one score name, ordered, at most `limit` (group-by on a score). */
  scoreValues(projectId: string, name: string, limit: number, opts?: ReadOptions): Promise<{ value: number | null; label: string | null }[]>;
  /**
   * The Clusters view: failure signatures and low scores grouped (domain/score-groups.ts) with turn counts, time span,
   * agents, newest example traces and a per-day trend, from the summary kept with the scores (never every score row).
   */
  scoreGroups(q: ScoreGroupsQuery, opts?: ReadOptions): Promise<ScoreGroup[]>;

  // ---- retention and housekeeping

  /** Deletes a selection of spans (whole traces), keeping every summary exact. */
  deleteSpans(sel: DeleteSelection): Promise<DeleteResult>;
  /** Size of the store, per project. */
  storageStats(opts?: ReadOptions): Promise<StorageStats>;
  /** Projects with span counts, most recently active first. */
  projects(opts?: ReadOptions): Promise<ProjectRow[]>;
  /** True when the store answers a trivial query (system-check). */
  ping(opts?: ReadOptions): Promise<boolean>;
  /**
   * The store's own consistency check, off the serving thread: `full: false` a quick one (at start),
   * `full: true` a thorough one (on request). Lists what is wrong (at most 100 problems).
   */
  verify(opts: { full: boolean }): Promise<{ ok: boolean; problems: string[]; ms: number }>;
  /** Refuse (or accept again) every write, e.g. after `verify` found damage; reads still answer. */
  refuseWrites(on: boolean): Promise<void>;
  /**
   * Writes made by another process since the previous call (the first call only starts watching):
   * null when there were none; otherwise the projects whose spans they stored ([] when what changed
   * holds no span). Polled by the server so views refresh after `loupe import` in a terminal.
   */
  externalWrites(): Promise<string[] | null>;
  /** Stops readers and the writer; pending reads reject. */
  close(): Promise<void>;
}

// ================================================================ app store: shapes

/** A feedback record to store. Omitted optional fields take the interface's empty values. */
export interface NewFeedback {
  project_id: string;
  target_kind: TargetKind;
  target_id: string;
  feedback_type: string;
  payload?: Record<string, unknown>;
  id?: string;
  creator?: string | null;
  /** ISO date-time; default now. */
  created_at?: string | null;
  svc_user_id?: string | null;
  runnable_ref?: string | null;
  call_ref?: string | null;
  trigger_ref?: string | null;
  annotation_ref?: string | null;
  scorer_tags?: string[];
  scorer_tag_reasons?: Record<string, string>;
  scorer_tag_confidences?: Record<string, number>;
  scorer_ratings?: Record<string, number>;
  scorer_rating_reasons?: Record<string, string>;
  scorer_rating_confidences?: Record<string, number>;
}

/** Fields of a stored record an edit may change (the UI's thumbs and note); target and id stay. */
export type FeedbackPatch = Partial<Omit<NewFeedback, 'project_id' | 'target_kind' | 'target_id' | 'id' | 'created_at'>>;

export interface FeedbackFilter {
  project_id: string;
  target_kind?: TargetKind | null;
  target_id?: string | null;
  feedback_type?: string | null;
  limit: number;
  offset: number;
}

export interface FeedbackStore {
  /** Stores one record and returns it as the interface shows it. */
  insert(f: NewFeedback): Promise<FeedbackRecord>;
  /** Feedback of many targets of one kind, grouped by target id (oldest first within a target). */
  forTargets(projectId: string, kind: TargetKind, ids: readonly string[]): Promise<Map<string, FeedbackRecord[]>>;
  /** A page of feedback, newest first, and the number of matches. */
  query(f: FeedbackFilter): Promise<{ feedback: FeedbackRecord[]; total_count: number }>;
  /** Changes a record of the project; null when it has no record with this id. */
  update(projectId: string, id: string, patch: FeedbackPatch): Promise<FeedbackRecord | null>;
  /** Deletes a record of the project; false when there was none. */
  remove(projectId: string, id: string): Promise<boolean>;
}

export interface SettingsStore {
  get(key: string): Promise<string | null>;
  /** Sets (string) or removes (null) several settings in one transaction. */
  set(values: Record<string, string | null>): Promise<void>;
}

export interface ModelRow {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: string;
  backend: string | null;
  remote_model_id: string | null;
  /** The base model Loupe runs (null on rows older than migration 0006: base_model itself). */
  runtime_model: string | null;
  created_at_us: number;
}

export interface ListedModelRow extends ModelRow {
  /** Highest checkpoint step, null when the model has none (a remote model before its sync). */
  latest_step: number | null;
}

export interface CheckpointRow {
  id: string;
  model_id: string;
  step: number;
  metrics: Record<string, number>;
  created_at_us: number;
}

export type JobStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface JobRow {
  id: string;
  model_id: string;
  kind: 'rl' | 'sft';
  status: JobStatus;
  /** Inline request body of rows written before migration 0006 (null otherwise, and once the job ended). */
  payload: unknown;
  /** The request body's file, relative to the data directory; null once the job ended. */
  payload_file: string | null;
  /** What the job view shows once the payload is gone (counts, rates, data URL). */
  summary: Record<string, unknown>;
  created_at_us: number;
  training_start_us: number | null;
  training_end_us: number | null;
  error_message: string | null;
  step: number | null;
  remote_job_id: string | null;
}

export interface JobEventRow {
  id: string;
  job_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at_us: number;
}

export interface BackendRow {
  name: string;
  base_url: string;
  api_key: string;
}

/** A version of a dataset (SFT training data), addressed as wandb-artifact:///<entity>/<project>/<name>:v<version>. */
export interface DatasetRow {
  id: string;
  entity: string;
  project: string;
  name: string;
  version: number;
  /** JSONL file, relative to the data directory. */
  file: string;
  bytes: number;
  lines: number;
  sha256: string;
  source: 'upload' | 'conversations';
  created_at_us: number;
}

/** `payload: null` drops a legacy inline payload (the job ended). */
export type JobPatch = Partial<Pick<JobRow, 'status' | 'training_start_us' | 'training_end_us' | 'error_message' | 'step' | 'remote_job_id' | 'payload_file'>> & {
  payload?: null;
};

/**
 * Training records (semantics §9): today's TrainingRepo, async, with intention-named writes where
 * several rows must change together instead of a transaction spanning calls.
 */
export interface TrainingStore {
  insertModel(m: ModelRow): Promise<void>;
  /** A new model and its first checkpoint (step 0), visible together. */
  createModel(m: ModelRow, first: CheckpointRow): Promise<void>;
  getModel(id: string): Promise<ModelRow | null>;
  findModel(entity: string, project: string, name: string): Promise<ModelRow | null>;
  /**
   * One page of models in creation order (`desc` = newest first), optionally of one entity and/or
   * project; `after` is a model id, exclusive in the page direction. Reads limit + 1 to know
   * has_more; null when `after` names no model.
   */
  pageModels(f: { entity: string | null; project: string | null; after: string | null; limit: number; order: 'asc' | 'desc' }): Promise<ListedModelRow[] | null>;
  /** Deletes the model and its checkpoint rows; returns the number of checkpoints deleted. */
  deleteModel(id: string): Promise<number>;

  insertCheckpoint(c: CheckpointRow): Promise<void>;
  latestCheckpoint(modelId: string): Promise<CheckpointRow | null>;
  checkpointByStep(modelId: string, step: number): Promise<CheckpointRow | null>;
  checkpointById(modelId: string, id: string): Promise<CheckpointRow | null>;
  listCheckpoints(modelId: string): Promise<CheckpointRow[]>;
  /** One page ordered by step; `afterStep` is exclusive in the page direction. Reads limit + 1 to know has_more. */
  pageCheckpoints(modelId: string, afterStep: number | null, limit: number, order: 'asc' | 'desc'): Promise<CheckpointRow[]>;
  setCheckpointMetrics(id: string, metrics: Record<string, number>): Promise<void>;
  /** Deletes the given steps together; returns the steps that existed. */
  deleteCheckpointSteps(modelId: string, steps: number[]): Promise<number[]>;
  /**
   * Makes the model's checkpoint rows equal to `list` (a remote backend's): steps not in it are
   * deleted, new ones inserted, existing ones get the listed metrics. One transaction.
   */
  mirrorCheckpoints(modelId: string, list: { id: string; step: number; metrics: Record<string, number> }[], createdAtUs: number): Promise<void>;

  /** Every model id (start-up cleanup of weight folders). */
  modelIds(): Promise<string[]>;

  insertJob(j: Pick<JobRow, 'id' | 'model_id' | 'kind' | 'status' | 'payload_file' | 'summary' | 'created_at_us'>): Promise<void>;
  getJob(id: string): Promise<JobRow | null>;
  updateJob(id: string, patch: JobPatch): Promise<void>;
  /**
   * One page of jobs, newest first (submission order reversed), optionally of one model and/or
   * status; `after` is a job id, exclusive. Reads limit + 1; null when `after` names no job.
   */
  pageJobs(f: { modelId: string | null; status: JobStatus | null; after: string | null; limit: number }): Promise<JobRow[] | null>;
  /** Jobs in a status, oldest first (submission order). */
  jobsWithStatus(status: JobStatus, modelId?: string): Promise<JobRow[]>;
  /**
   * A job's successful end, visible at once: its new checkpoint (when it made one), its terminal
   * event (when given), and the job row COMPLETED with `patch` (end time, step).
   */
  completeJob(jobId: string, end: { checkpoint: CheckpointRow | null; event: JobEventRow; patch: JobPatch }): Promise<void>;
  /**
   * A job's failure or cancellation, visible at once: the job row FAILED (or CANCELLED) with `patch`
   * and its training_failed event.
   */
  failJob(jobId: string, end: { event: JobEventRow; patch: JobPatch; status?: 'FAILED' | 'CANCELLED' }): Promise<void>;
  /** Jobs that ended but still name a payload (start-up cleanup after a crash). */
  endedJobsWithPayload(): Promise<JobRow[]>;

  insertEvent(e: JobEventRow): Promise<void>;
  /** Ascending page after the event with id `after` (exclusive); reads limit + 1. Null when `after` is unknown. */
  pageEvents(jobId: string, after: string | null, limit: number): Promise<JobEventRow[] | null>;
  eventsOfType(jobId: string, type: string): Promise<JobEventRow[]>;

  /**
   * The next version of a dataset name, in one transaction: its number is chosen, `place(version)`
   * moves the file into place and returns its path relative to the data directory, and the row is
   * inserted (a throw from `place` stores nothing).
   */
  addDatasetVersion(d: Omit<DatasetRow, 'version' | 'file'>, place: (version: number) => string): Promise<DatasetRow>;
  /** A version of a dataset, or its latest when version is null. */
  getDataset(entity: string, project: string, name: string, version: number | null): Promise<DatasetRow | null>;
  /** The version of a name holding exactly this content, if any (uploads are deduplicated). */
  datasetBySha(entity: string, project: string, name: string, sha256: string): Promise<DatasetRow | null>;
  /** Newest first; optional entity/project/name filters; `after` = a dataset version id. Null when `after` is unknown. */
  pageDatasets(f: { entity: string | null; project: string | null; name: string | null; after: string | null; limit: number }): Promise<DatasetRow[] | null>;

  putBackend(b: BackendRow): Promise<void>;
  removeBackend(name: string): Promise<void>;
  getBackend(name: string): Promise<BackendRow | null>;
  listBackends(): Promise<BackendRow[]>;
  /** Training settings in one transaction: settings values (set/remove), backends removed, then put. */
  applySettings(change: { settings: Record<string, string | null>; remove: string[]; put: BackendRow[] }): Promise<void>;
  /**
   * What `/log` stores besides the rollout spans (written to the TraceStore first; re-writing them
   * is idempotent): the latest checkpoint's merged metrics and one reward feedback per trajectory,
   * in one transaction. Returns the stored feedback.
   */
  recordRollouts(r: { checkpoint: { id: string; metrics: Record<string, number> } | null; feedback: NewFeedback[] }): Promise<FeedbackRecord[]>;
}

// ================================================================ app store

export interface AppStore {
  readonly feedback: FeedbackStore;
  readonly settings: SettingsStore;
  readonly training: TrainingStore;
  /** The SQLite file of the app's records (in the data folder). */
  readonly file: string;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Both stores of a running Loupe, as the factory (store/index.ts) opens them. */
export interface Stores {
  readonly traces: TraceStore;
  readonly app: AppStore;
  /** Closes both (the trace store first: its readers may hold the shared file). */
  close(): Promise<void>;
}
