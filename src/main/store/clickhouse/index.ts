/**
 * The ClickHouse adapter of the store port (store/ports.ts): Loupe for a team, many writers and
 * readers on one shared database. `openClickHouseTraceStore('clickhouse://user:pass@host:8123/db')`
 * connects, migrates and returns a TraceStore; the AppStore stays SQLite in the local data folder
 * (decision 0002). Layout, write path and query notes: docs/clickhouse.md.
 */
import type { SpanRecord } from '../../domain/span.js';
import type { ConversationsPlan, AgentsPlan, SpansListPlan, SpansGroupPlan, ThreadsPlan } from '../../domain/plans.js';
import {
  StoreError,
  type DeleteSelection, type EncodedBatch, type ExportSelection, type ReadOptions, type SearchQuery, type TraceStore, type TurnRef, type WriteResult,
} from '../ports.js';
import { ClickHouse, parseStoreUrl, redactStoreUrl } from './connection.js';
import { encodeSpans, type EncodedSpans } from './encode.js';
import { migrateClickHouse } from './migrate.js';
import { Writer, nextStamp } from './writer.js';
import { listSpans } from './reads/spans-list.js';
import { groupSpans } from './reads/spans-group.js';
import { agents } from './reads/agents.js';
import { threads } from './reads/threads.js';
import { GATHER_RULE, conversations, facets, type GatherRule } from './reads/conversations.js';
import { conversationTurns, conversationsTurnIds, spansOfTraces, turnsSpans } from './reads/chat.js';
import { factsOfTurns } from '../turn-spans.js';
import { timeline } from './reads/timeline.js';
import { exportTraceIds, exportTraceSpans } from './reads/export.js';
import { search } from './reads/search.js';
import { spanTexts } from './reads/matches.js';
import { GATHER_DOCS } from '../../domain/gather-bound.js';
import { backfillSearchTerms } from './search-index.js';
import { backfillRollupDays } from './rollup-days.js';
import { ping, projects, storageStats } from './reads/housekeeping.js';
import { deleteSpans } from './retention.js';
import { verifyStore } from './verify.js';
import { chatPage } from '../../domain/chat/page.js';
import { queryScores, scoreGroups, scoreStats, scoreValues } from './scores.js';
import { deleteScores, writeScores } from './scores-write.js';
import type { ScoreRecord, ScoresQuery, ScoreStatsBy } from '../../domain/scores.js';
import type { ScoreGroupsQuery } from '../../domain/score-groups.js';

export const ADAPTER = 'clickhouse';
/** A day written to within this long is left unmerged (it will likely be written again). */
const CLEAN_AFTER_MS = 30_000;

export { encodeForClickHouse } from './encode.js';

export { isClickHouseUrl } from './url.js';

function batchSpansFromEnv(text: string | undefined): number | null {
  if (!text) return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new Error(`LOUPE_CLICKHOUSE_BATCH_SPANS must be an integer from 1 to 1000000, got "${text}"`);
  return n;
}

export async function openClickHouseTraceStore(url: string): Promise<ClickHouseTraceStore> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    await migrateClickHouse(ch);
  } catch (e) {
    await ch.close();
    throw e;
  }
  const store = new ClickHouseTraceStore(ch, redactStoreUrl(url));
  // Batches another writer left unfinished (killed mid-write) are recomputed in the background, once
  // the opener had its chance to make the store read-only (openStores does right after opening).
  setTimeout(() => void store.repair().catch(() => {}).then(() => store.fillRollupDays()).catch(() => {}).then(() => store.indexOldSpans()).catch(() => {}), 1000).unref();
  return store;
}

export class ClickHouseTraceStore implements TraceStore {
  readonly adapter = ADAPTER;
  readonly capabilities = {
    // A needle the term index finds in more documents than `listGather` allows is walked in the page's order:
    // its count is the rows walked that matched (reads/conversations.ts), as on SQLite.
    searchCounts: 'lower_bound_when_common',
    // `$search` inside a condition is SQL over the messages' stored JSON (expr.ts): keys and roles match too.
    searchConditions: 'superset',
    // A read's signal kills its query on the server (connection.ts).
    cancelsRunningReads: true,
  } as const satisfies TraceStore['capabilities'];
  /**
   * Each write is a dozen statements whatever its size (writer.ts): big batches. LOUPE_CLICKHOUSE_BATCH_SPANS
   * overrides it (the crash test needs several batches from a small file; an operator may trade memory for it).
   */
  readonly writeBatchSpans = batchSpansFromEnv(process.env.LOUPE_CLICKHOUSE_BATCH_SPANS) ?? 16_384;
  private readonly writer: Writer;
  private closed = false;
  /** Candidate documents beyond which `search` walks a needle day by day (tests lower it to walk a small store). */
  gatherDocs = GATHER_DOCS;
  /** When the conversations list walks a search rather than gathering it (reads/conversations.ts; tests lower it). */
  listGather: GatherRule = GATHER_RULE;

  private cleaning: NodeJS.Timeout | null = null;

  constructor(
    private readonly ch: ClickHouse,
    readonly location: string,
  ) {
    this.writer = new Writer(ch);
    // Days holding several versions of a span are merged once writes to them have paused, so scans
    // read them without FINAL again (writer.ts cleanDirtyDays).
    this.writer.onDirty = () => {
      if (this.cleaning || this.closed) return;
      this.cleaning = setTimeout(() => {
        this.cleaning = null;
        void this.maintain().catch(() => {});
      }, CLEAN_AFTER_MS);
      this.cleaning.unref();
    };
  }

  /**
   * Housekeeping outside the port: merges the days whose writes have paused (see dirty_days).
   * Runs by itself after writes; tests call it to reach the merged state at once.
   */
  async maintain(quietMs = CLEAN_AFTER_MS): Promise<string[]> {
    const cleaned = await this.writer.cleanDirtyDays(quietMs);
    return cleaned;
  }

  /**
   * Recomputes the summaries of batches some writer left unfinished for `olderThanMs` (write_journal:
   * a writer killed, or its server gone longer than its retries). Runs once when the store opens.
   */
  async repair(olderThanMs?: number): Promise<number> {
    if (this.refusing || this.closed) return 0; // a read-only Loupe writes nothing, repairs included
    return this.writer.repair(olderThanMs);
  }

  /**
   * Indexes for search the spans stored before the term index existed (migration 0009; search-index.ts):
   * once per store, resumed where it stopped. Runs after the repair at open; search scans until it is done.
   */
  indexOldSpans(): Promise<number> {
    if (this.refusing || this.closed) return Promise.resolve(0);
    // One at a time: a call while the backfill runs (the one at open) waits for it.
    this.backfilling ??= backfillSearchTerms(this.ch, (p, ids) => spanTexts(this.ch, p, ids)).finally(() => (this.backfilling = null));
    return this.backfilling;
  }
  private backfilling: Promise<number> | null = null;

  /**
   * Fills the rollups' day layer (migration 0015, rollup-days.ts) for the days stored before it existed, then lets the
   * group view read it. Runs after the repair at open (its days are then kept by every round); until it is done the
   * group view reads span_rollups. A read-only Loupe writes nothing and keeps reading span_rollups.
   */
  fillRollupDays(): Promise<number> {
    if (this.refusing || this.closed) return Promise.resolve(0);
    this.fillingDays ??= backfillRollupDays(this.ch, nextStamp).then((n) => {
      if (this.rollupDays === 'filling') this.rollupDays = 'ready';
      return n;
    }).finally(() => (this.fillingDays = null));
    return this.fillingDays;
  }
  private fillingDays: Promise<number> | null = null;
  /**
   * Whether the group view reads the day layer: 'ready' once fillRollupDays has run in this process (the layer holds
   * every stored day). Tests set 'off' to pin span_rollups (clickhouse-rollups.test.ts), which the fill leaves off.
   */
  rollupDays: 'filling' | 'ready' | 'off' = 'filling';

  /** How long a write is retried while the server is unreachable (the writer's retryForMs). */
  set retryForMs(ms: number) {
    this.writer.retryForMs = ms;
  }

  /** Answers once the batch's summaries are written too (small writes: tests, the demo, small imports). */
  writeSpans(spans: SpanRecord[]): Promise<WriteResult> {
    this.checkWritable();
    return this.writer.write(encodeSpans(spans), 'summarized');
  }

  /** Answers once the batch's spans are stored; its summaries follow in the background (`settled`). */
  writeEncoded(batch: EncodedBatch): Promise<WriteResult> {
    this.checkWritable();
    if (batch.adapter !== ADAPTER) throw new StoreError(`a batch encoded for the ${batch.adapter} store was given to the ClickHouse store`);
    return this.writer.write(batch.payload as EncodedSpans, 'stored');
  }

  settled(): Promise<void> {
    return this.writer.settled();
  }

  summarizing(): number {
    return this.writer.pendingSummaries();
  }

  async traceSpans(projectId: string, traceId: string, opts: ReadOptions = {}) {
    return (await spansOfTraces(this.ch, projectId, [traceId], null, opts))[0] ?? [];
  }

  /** The page from every span of the trace (no lazy reads here), walked no further than the page needs. */
  async traceChatPage(projectId: string, traceId: string, page: { offset: number; limit: number }, opts: ReadOptions = {}) {
    return chatPage(traceId, await this.traceSpans(projectId, traceId, opts), null, page.offset, page.limit);
  }

  conversationTurns(q: { project_id: string; conversation_id: string; limit: number; offset: number }, opts: ReadOptions = {}) {
    return conversationTurns(this.ch, q, opts);
  }

  conversationTurnSpans(projectId: string, conversationId: string, traceIds: readonly string[], opts: ReadOptions = {}) {
    return spansOfTraces(this.ch, projectId, traceIds, conversationId, opts);
  }

  conversationsTurnIds(projectId: string, conversationIds: readonly string[], opts: ReadOptions = {}) {
    return conversationsTurnIds(this.ch, projectId, conversationIds, opts);
  }

  turnsSpans(projectId: string, turns: readonly TurnRef[], opts: ReadOptions = {}) {
    return turnsSpans(this.ch, projectId, turns, opts);
  }

  async turnsFacts(projectId: string, turns: readonly TurnRef[], opts: ReadOptions = {}) {
    return factsOfTurns(turns, await turnsSpans(this.ch, projectId, turns, opts));
  }

  conversations(plan: ConversationsPlan, opts: ReadOptions = {}) {
    return conversations(this.ch, plan, opts, this.listGather);
  }

  conversationFacets(projectId: string, opts: ReadOptions = {}) {
    return facets(this.ch, projectId, opts);
  }

  agents(plan: AgentsPlan, opts: ReadOptions = {}) {
    return agents(this.ch, plan, opts);
  }

  listSpans(plan: SpansListPlan, opts: ReadOptions = {}) {
    return listSpans(this.ch, plan, opts);
  }

  groupSpans(plan: SpansGroupPlan, opts: ReadOptions = {}) {
    return groupSpans(this.ch, plan, opts, this.rollupDays === 'ready');
  }

  threads(plan: ThreadsPlan, opts: ReadOptions = {}) {
    return threads(this.ch, plan, opts);
  }

  timeline(projectId: string, traceId: string, opts: ReadOptions = {}) {
    return timeline(this.ch, projectId, traceId, opts);
  }

  search(q: SearchQuery, opts: ReadOptions = {}) {
    return search(this.ch, q, opts, this.gatherDocs);
  }

  exportTraceIds(sel: ExportSelection, opts: ReadOptions = {}) {
    return exportTraceIds(this.ch, sel, opts);
  }

  exportTraceSpans(projectId: string, traceId: string, opts: ReadOptions = {}) {
    return exportTraceSpans(this.ch, projectId, traceId, opts);
  }

  deleteSpans(sel: DeleteSelection) {
    this.checkWritable();
    // After the summaries of what was stored before, and alone: a delete recomputes summaries too.
    return this.writer.exclusive(() => deleteSpans(this.ch, this.writer, sel));
  }

  /** Migrations present (quick); summaries agreeing with the spans they derive from (full): verify.ts. */
  async verify(opts: { full: boolean } = { full: false }): Promise<{ ok: boolean; problems: string[]; ms: number }> {
    const t = performance.now();
    let problems: string[];
    try {
      problems = await verifyStore(this.ch, opts.full);
    } catch (e) {
      problems = [`the ClickHouse server did not answer the check: ${e instanceof Error ? e.message : String(e)}`];
    }
    return { ok: problems.length === 0, problems, ms: Math.round(performance.now() - t) };
  }

  private refusing = false;

  async refuseWrites(on: boolean): Promise<void> {
    this.refusing = on;
  }

  private checkWritable(): void {
    if (this.refusing) throw new StoreError('writes are refused (read-only mode)');
  }

  /** Many writers share a ClickHouse store by design: other writers' spans are not announced (views refresh by their own writes and polling). */
  async externalWrites(): Promise<string[] | null> {
    return null;
  }

  storageStats(opts: ReadOptions = {}) {
    return storageStats(this.ch, opts);
  }

  async writeScores(scores: ScoreRecord[]): Promise<void> {
    this.checkWritable();
    await writeScores(this.ch, scores);
  }

  deleteScores(projectId: string, ids: readonly string[]): Promise<number> {
    this.checkWritable();
    return deleteScores(this.ch, projectId, ids);
  }

  queryScores(q: ScoresQuery, opts: ReadOptions = {}) {
    return queryScores(this.ch, q, opts);
  }

  scoreStats(q: { project_id: string; by: ScoreStatsBy; keys: string[] | null; names: string[] | null }, opts: ReadOptions = {}) {
    return scoreStats(this.ch, q, opts);
  }

  scoreValues(projectId: string, name: string, limit: number, opts: ReadOptions = {}) {
    return scoreValues(this.ch, projectId, name, limit, opts);
  }

  scoreGroups(q: ScoreGroupsQuery, opts: ReadOptions = {}) {
    return scoreGroups(this.ch, q, opts);
  }

  projects(opts: ReadOptions = {}) {
    return projects(this.ch, opts);
  }

  ping(opts: ReadOptions = {}) {
    return ping(this.ch, opts);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.cleaning) clearTimeout(this.cleaning);
    // Summaries of stored batches are finished first (a failure leaves them to repair at next open).
    await this.writer.settled().catch(() => {});
    await this.ch.close();
  }
}
