/**
 * The ordered list of schema migrations. Each is applied once, in its own transaction, and its
 * SHA-256 is recorded; opening a database whose applied migrations differ from these texts fails
 * at boot (tamper-evident), as does a gap in the numbering.
 *
 * Numbers are reserved per domain so parallel work never collides:
 *   0001 core spans/feedback · 0002 read summaries (query) · 0004 training · 0005 analytics covering index ·
 *   0006 conversation summaries, counting bits, spans indexes (layout) · 0007 training jobs v2 and datasets ·
 *   0008 filter choices · 0009 project summaries (layout) · 0010 full-text search (layout) ·
 *   0011 compressed span bodies (layout) · 0012 span rollups by agent (layout) · 0013 compact summaries (layout) ·
 *   0014 span keys out of bodies (layout) · 0015 search documents per conversation (layout) ·
 *   0016 spans of one agent index (layout) · 0017 trace conversations (layout) · 0018 thread statistics (query) ·
 *   0019 credited accounting (query) · 0020 span rollups keyed by agent, operation, status, model and provider (layout) · 0021 continued inputs
 *   (layout, ingest) · 0022 scores · 0023–0024 score groups · 0025 lean spans rows (layout) ·
 *   0026 conversation rows by agent, conversation counts (query) · 0027 conversation sort indexes with their ties (query) · 0028 per-day rollup layer (query) ·
 *   0029 conversation rows by request model (query) · 0030 span_kind and response_model rollup keys (query) · 0031 span_name and duration-bucket day layer (query)
 */
import core from './0001_core.js';
import traceSummaries from './0002_trace_summaries.js';
import agentSummaries from './0003_agent_summaries.js';
import training from './0004_training.js';
import groupCovering from './0005_group_covering.js';
import conversations from './0006_conversations.js';
import trainingJobsDatasets from './0007_training_jobs_datasets.js';
import facets from './0008_facets.js';
import projectSummaries from './0009_project_summaries.js';
import search from './0010_search.js';
import compactBodies from './0011_compact_bodies.js';
import spanRollups from './0012_span_rollups.js';
import compactSummaries from './0013_compact_summaries.js';
import spanKeysOutOfBodies from './0014_span_keys_out_of_bodies.js';
import searchByConversation from './0015_search_by_conversation.js';
import spansProjectAgent from './0016_spans_project_agent.js';
import traceConversations from './0017_trace_conversations.js';
import threadStats from './0018_thread_stats.js';
import creditedAccounting from './0019_credited_accounting.js';
import keyedRollups from './0020_keyed_rollups.js';
import continuedInputs from './0021_continued_inputs.js';
import scores from './0022_scores.js';
import scoreGroups from './0023_score_groups.js';
import scoresCorrected from './0024_scores_corrected.js';
import leanSpans, { check as leanSpansCheck } from './0025_lean_spans.js';
import conversationAgents from './0026_conversation_agents.js';
import conversationSortTies from './0027_conversation_sort_ties.js';
import rollupDays from './0028_rollup_days.js';
import conversationModels from './0029_conversation_models.js';
import rollupKindModel from './0030_rollup_kind_model.js';
import spanNameDays from './0031_span_name_days.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * The SQL edits a table's definition in sqlite_schema (PRAGMA writable_schema): applied with
   * SQLite's defensive mode off and the schema version bumped after it (sqlite/migrate.ts).
   */
  editsSchema?: true;
  /** A query run after the SQL: a non-null first value names what did not take, and the migration is rolled back. */
  check?: string;
}

export const migrations: Migration[] = [
  { version: 1, name: 'core', sql: core },
  { version: 2, name: 'trace_summaries', sql: traceSummaries },
  { version: 3, name: 'agent_summaries', sql: agentSummaries },
  { version: 4, name: 'training', sql: training },
  { version: 5, name: 'group_covering', sql: groupCovering },
  { version: 6, name: 'conversations', sql: conversations },
  { version: 7, name: 'training_jobs_datasets', sql: trainingJobsDatasets },
  { version: 8, name: 'facets', sql: facets },
  { version: 9, name: 'project_summaries', sql: projectSummaries },
  { version: 10, name: 'search', sql: search },
  { version: 11, name: 'compact_bodies', sql: compactBodies },
  { version: 12, name: 'span_rollups', sql: spanRollups },
  { version: 13, name: 'compact_summaries', sql: compactSummaries },
  { version: 14, name: 'span_keys_out_of_bodies', sql: spanKeysOutOfBodies },
  { version: 15, name: 'search_by_conversation', sql: searchByConversation },
  { version: 16, name: 'spans_project_agent', sql: spansProjectAgent },
  { version: 17, name: 'trace_conversations', sql: traceConversations },
  { version: 18, name: 'thread_stats', sql: threadStats },
  { version: 19, name: 'credited_accounting', sql: creditedAccounting },
  { version: 20, name: 'keyed_rollups', sql: keyedRollups },
  { version: 21, name: 'continued_inputs', sql: continuedInputs },
  { version: 22, name: 'scores', sql: scores },
  { version: 23, name: 'score_groups', sql: scoreGroups },
  { version: 24, name: 'scores_corrected', sql: scoresCorrected },
  { version: 25, name: 'lean_spans', sql: leanSpans, editsSchema: true, check: leanSpansCheck },
  { version: 26, name: 'conversation_agents', sql: conversationAgents },
  { version: 27, name: 'conversation_sort_ties', sql: conversationSortTies },
  { version: 28, name: 'rollup_days', sql: rollupDays },
  { version: 29, name: 'conversation_models', sql: conversationModels },
  { version: 30, name: 'rollup_kind_model', sql: rollupKindModel },
  { version: 31, name: 'span_name_days', sql: spanNameDays },
];
