/**
 * Every read of the TraceStore over one SQLite connection, synchronous. The read pool runs one of
 * these per worker thread on a read-only connection (read-pool.ts, read-worker.ts); with no pool
 * (an in-memory database) the TraceStore runs one on its own connection. Arguments and results are
 * plain data (plans, rows, bigint times) so they cross a thread boundary unchanged.
 */
import type { Db } from './open.js';
import { isoFromNs } from '../../domain/time.js';
import type { AgentsPlan, ConversationsPlan, SpansGroupPlan, SpansListPlan, ThreadsPlan } from '../../domain/plans.js';
import type { SearchQuery, SearchHit, ProjectRow, ExportSelection, TurnRef } from '../ports.js';
import { factsOfTurns } from '../turn-spans.js';
import { createChatRepo } from './chat.js';
import { chatPage } from '../../domain/chat/page.js';
import { createExportRepo } from './export.js';
import { createTimelineRepo } from './timeline.js';
import { createMetaRepo } from './meta.js';
import { statementCache } from './analytics/stmt-cache.js';
import { queryAgents } from './analytics/agents.js';
import { listSpans } from './analytics/spans-list.js';
import { groupSpans } from './analytics/spans-group.js';
import { queryThreads } from './analytics/threads.js';
import { searchSpans } from './search.js';
import { createConversationsRepo } from './conversations.js';
import { createSearchReader } from './fts.js';
import { createScoresReader } from './scores.js';

export function createReader(db: Db) {
  const prep = statementCache(db);
  const chat = createChatRepo(db);
  const exporter = createExportRepo(db);
  const timeline = createTimelineRepo(db);
  const meta = createMetaRepo(db);
  const conversations = createConversationsRepo(db);
  const searchReader = createSearchReader(db);
  const scores = createScoresReader(db);
  return {
    traceSpans: chat.traceSpans,
    // The walk runs here, beside the connection, so heavy fields load only for the spans the page visits.
    traceChatPage: (projectId: string, traceId: string, offset: number, limit: number) =>
      chatPage(traceId, chat.traceSpansLazy(projectId, traceId), chat.traceMessageHints(projectId, traceId), offset, limit),
    conversationTurns: chat.conversationTurns,
    conversationTurnSpans: chat.conversationTurnSpans,
    conversationsTurnIds: chat.conversationsTurnIds,
    turnsSpans: chat.turnsSpans,
    // The walk runs here too: only the facts (a few hundred bytes a turn) go back to the caller.
    turnsFacts: (projectId: string, turns: readonly TurnRef[]) => factsOfTurns(turns, chat.turnsSpansForFacts(projectId, turns)),
    conversations: (plan: ConversationsPlan) => conversations.list(plan),
    conversationFacets: (projectId: string) => conversations.facets(projectId),
    agents: (plan: AgentsPlan) => queryAgents(prep, plan),
    listSpans: (plan: SpansListPlan) => listSpans(prep, plan),
    groupSpans: (plan: SpansGroupPlan) => groupSpans(prep, plan),
    /** A generator: the pool sends its rows in chunks as they are computed. */
    threads: (plan: ThreadsPlan) => queryThreads(prep, plan),
    timeline: timeline.traceColumns,
    search: (q: SearchQuery): SearchHit[] => searchSpans(prep, searchReader, q),
    exportTraceIds: (sel: ExportSelection) => exporter.traceIds(sel),
    exportTraceSpans: exporter.traceSpans,
    projects: (): ProjectRow[] =>
      meta.listProjects().map((p) => ({ project_id: p.project_id, span_count: p.span_count, last_activity: p.last_start_ns == null ? null : isoFromNs(p.last_start_ns) })),
    ping: () => meta.ping(),
    queryScores: scores.queryScores,
    scoreStats: scores.scoreStats,
    scoreValues: scores.scoreValues,
    scoreGroups: scores.scoreGroups,
  };
}

export type Reader = ReturnType<typeof createReader>;
export type ReadMethod = keyof Reader;
