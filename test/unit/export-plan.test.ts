/**
 * `/export` reads each trace's spans through the (project, trace) key (issue 23.4). The planner had
 * taken spans_project_start to skip a sort and walked the whole project for every trace: an export
 * quadratic in the project's size (~40 min for 100k spans). Timings: `npm run bench -- export`.
 */
import { describe, expect, it } from 'vitest';
import { EXPORT_SQL } from '../../src/main/store/sqlite/export.js';
import { tempStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';
import { generateDemo } from '../../src/main/demo/generate.js';
import { importRequest } from '../helpers/otlp.js';

const freshStore = tempStores('loupe-export-plan-');

describe('export reads a trace by its key', () => {
  it('the plan of a trace\'s spans searches spans_key on (project_id, trace_id), never the whole project', async () => {
    const store = await freshStore();
    for (const r of generateDemo({ seed: 1, now: Date.UTC(2026, 10, 22), fillers: 10 }).requests) await importRequest(store, 'p', r as never);
    const db = openStoreFile(store.file);
    try {
      db.exec('ANALYZE');
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${EXPORT_SQL.traceSpans}`).all({ project_id: 'p', trace_id: 't' }) as { detail: string }[]).map((r) => r.detail);
      expect(plan[0]).toMatch(/SEARCH s USING INDEX spans_key \(project_id=\? AND trace_id=\?\)/);
    } finally {
      db.close();
    }
  });
});
