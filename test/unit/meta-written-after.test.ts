/**
 * The projects of spans another process stored (the server's watch for a `loupe import` beside it, every second):
 * read from the new rows only — a rowid range of `spans`, not a walk of a whole index — and in project order.
 */
import { describe, expect, it } from 'vitest';
import { createMetaRepo, META_SQL } from '../../src/main/store/sqlite/meta.js';
import { tempStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-meta-');

describe('projects written after a rowid', () => {
  it('are the new rows\' projects, sorted, read by a rowid range', async () => {
    const store = await freshStore();
    const db = openStoreFile(store.file);
    try {
      const add = db.prepare("INSERT INTO spans (project_id, trace_id, span_id, span_name, ingested_at_ms) VALUES (?, 't', ?, 'n', 0)");
      const ids = ['zeta', 'alpha', 'mid', 'alpha', 'zeta'].map((p, i) => Number(add.run(p, `s${i}`).lastInsertRowid));
      const meta = createMetaRepo(db);
      expect(meta.projectsWrittenAfter(0)).toEqual(['alpha', 'mid', 'zeta']);
      expect(meta.projectsWrittenAfter(ids[0]!)).toEqual(['alpha', 'mid', 'zeta']);
      expect(meta.projectsWrittenAfter(ids[2]!)).toEqual(['alpha', 'zeta']);
      expect(meta.projectsWrittenAfter(ids[3]!)).toEqual(['zeta']);
      expect(meta.projectsWrittenAfter(meta.lastSpanRowid())).toEqual([]);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${META_SQL.writtenAfter}`).all(0) as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/SEARCH spans USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      expect(plan).not.toMatch(/spans_project_start/);
    } finally {
      db.close();
    }
  });
});
