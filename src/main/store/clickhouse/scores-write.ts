/** Writes of the scores table on ClickHouse (issue 20): versioned rows, deletes as tombstones (scores.ts reads). */
import type { ClickHouse } from './connection.js';
import { join, sql, str } from './sql.js';
import { nextStamp, jsonRows } from './writer.js';
import type { ScoreRecord } from '../../domain/scores.js';
import { rowOf, toRecord, type Row } from './scores.js';

export async function writeScores(ch: ClickHouse, scores: readonly ScoreRecord[]): Promise<void> {
  if (!scores.length) return;
  await ch.insertJsonEachRow('scores', jsonRows(scores.map(rowOf), nextStamp()));
}

export async function deleteScores(ch: ClickHouse, projectId: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const rows = await ch.rows<Row>(sql`SELECT * FROM scores FINAL WHERE project_id = ${str(projectId)} AND score_id IN (${join(ids.map((i) => sql`${str(i)}`), ', ')}) AND deleted = 0`);
  if (!rows.length) return 0;
  await ch.insertJsonEachRow('scores', jsonRows(rows.map((r) => rowOf(toRecord(r))), nextStamp(), 1));
  return rows.length;
}

