/**
 * Query plans of the scores reads that must not walk a project's every score row (issue 20): the
 * corrected scores an SFT dataset from reviews reads go through the partial index of migration 0024.
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStores } from '../../src/main/store/index.js';
import { scoresPageSql } from '../../src/main/store/sqlite/scores.js';
import { RETENTION_SQL } from '../../src/main/store/sqlite/retention.js';

describe('scores query plans (SQLite)', () => {
  it('corrected scores are read through scores_corrected, newest first without sorting; a scorer\'s own ids by the primary key', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loupe-plan-')), 'loupe.db');
    await (await openStores(file)).close();
    const db = new Database(file, { readonly: true });
    const q = { project_id: 'p', name: null, trace_id: null, conversation_id: null, span_id: null, source: null, conv_keys: null, limit: 1000, after: null, with_correction: true };
    for (const page of [q, { ...q, after: { created_at_ns: 5n, score_id: 'x' } }]) {
      const { sql, params } = scoresPageSql(page);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/USING (COVERING )?INDEX scores_corrected/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
    // A scorer's already-scored check of a chunk: its own score ids, each found by the primary key.
    const { sql, params } = scoresPageSql({ ...q, with_correction: false, score_ids: ['a', 'b'] });
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan).toMatch(/SEARCH scores USING PRIMARY KEY \(project_id=\? AND score_id=\?\)/);
    expect(plan).not.toMatch(/SCAN scores/);
    // One trace's scores: its rows by scores_trace, not the project's newest-first walk.
    const byTrace = scoresPageSql({ ...q, with_correction: false, trace_id: 't' });
    expect((db.prepare(`EXPLAIN QUERY PLAN ${byTrace.sql}`).all(...byTrace.params) as { detail: string }[]).map((r) => r.detail).join('\n')).toMatch(
      /SEARCH scores USING INDEX scores_trace \(project_id=\? AND trace_id=\?\)/,
    );
    // Deleting a trace's scores (spans.delete) seeks the trace's rows, not every score of its project.
    const del = (db.prepare(`EXPLAIN QUERY PLAN ${RETENTION_SQL.deleteScores}`).all('p', 't') as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(del).toMatch(/SEARCH scores USING INDEX scores_trace \(project_id=\? AND trace_id=\?\)/);
    db.close();
  });
});
