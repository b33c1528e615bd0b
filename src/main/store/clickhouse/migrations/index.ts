/**
 * The ordered ClickHouse schema migrations (store/clickhouse/migrate.ts applies them). A migration is
 * a list of statements (ClickHouse runs one statement per request); each must be idempotent, because
 * ClickHouse has no transactions: a run interrupted half-way is finished by running it again. The
 * SHA-256 of the statements is recorded when applied and checked at every open, as for SQLite.
 */
import spans from './0001_spans.js';
import summaries from './0002_summaries.js';
import spanRollups from './0003_span_rollups.js';
import writerKeys from './0004_writer_keys.js';
import creditedAccounting from './0005_credited_accounting.js';
import keyedRollups from './0006_keyed_rollups.js';
import scores from './0007_scores.js';
import scoreGroups from './0008_score_groups.js';
import searchTerms from './0009_search_terms.js';
import keysFromSummaries from './0010_keys_from_summaries.js';
import projectDays from './0011_project_days.js';
import threadEnds from './0012_thread_ends.js';
import threadTurns from './0013_thread_turns.js';
import traceDays from './0014_trace_days.js';
import rollupDays from './0015_rollup_days.js';
import conversationRows from './0016_conversation_rows.js';

export interface ChMigration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const chMigrations: ChMigration[] = [
  { version: 1, name: 'spans', statements: spans },
  { version: 2, name: 'summaries', statements: summaries },
  { version: 3, name: 'span_rollups', statements: spanRollups },
  { version: 4, name: 'writer_keys', statements: writerKeys },
  { version: 5, name: 'credited_accounting', statements: creditedAccounting },
  { version: 6, name: 'keyed_rollups', statements: keyedRollups },
  { version: 7, name: 'scores', statements: scores },
  { version: 8, name: 'score_groups', statements: scoreGroups },
  { version: 9, name: 'search_terms', statements: searchTerms },
  { version: 10, name: 'keys_from_summaries', statements: keysFromSummaries },
  { version: 11, name: 'project_days', statements: projectDays },
  { version: 12, name: 'thread_ends', statements: threadEnds },
  { version: 13, name: 'thread_turns', statements: threadTurns },
  { version: 14, name: 'trace_days', statements: traceDays },
  { version: 15, name: 'rollup_days', statements: rollupDays },
  { version: 16, name: 'conversation_rows', statements: conversationRows },
];
