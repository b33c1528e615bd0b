/**
 * Every secondary index of `spans` is paid for on each ingested span, so each one kept must serve an
 * operation (issue 8 items 5–6): this pins the set of indexes and, for each, a query of the app whose
 * plan reads it. A new index needs a line here; an index no plan uses fails the test.
 */
import { describe, expect, it } from 'vitest';
import { SQL as CHAT_SQL } from '../../src/main/store/sqlite/chat.js';
import { EXPORT_SQL } from '../../src/main/store/sqlite/export.js';
import { whereOf } from '../../src/main/store/sqlite/analytics/filters.js';
import { sortClause } from '../../src/main/store/sqlite/analytics/spans-list.js';
import { tempStores } from '../helpers/temp-store.js';
import { explainGroup } from '../../src/main/store/sqlite/explain.js';
import { parseScope, parseSpansQuery } from '../../src/main/service/analytics/plan/spans.js';
import { spansInput } from '../helpers/analytics-call.js';
import { openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-indexes-');

describe('indexes of spans', () => {
  it('are exactly the ones an operation reads, each shown by its query plan', async () => {
    const store = await freshStore();
    const db = openStoreFile(store.file, { readonly: true });
    try {
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spans' AND sql IS NOT NULL ORDER BY name").pluck().all();
      expect(indexes).toEqual(['spans_key', 'spans_project_conversation', 'spans_project_start']);
      const plan = (sql: string, ...args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('\n');

      // spans_key: every per-trace read (chat views, summaries, export) and the upsert's conflict target.
      expect(plan(CHAT_SQL.traceSpans, { project_id: 'p', trace_id: 't' })).toMatch(/USING INDEX spans_key/);
      // spans_project_start: the spans list's default page (newest first) without a sort.
      const where = whereOf(parseScope({ project_id: 'p' }));
      const order = sortClause([{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }]);
      expect(plan(`SELECT s.id FROM spans s WHERE ${where.sql} ORDER BY ${order.sql} LIMIT 100`, ...where.params, ...order.params)).toMatch(/USING (COVERING )?INDEX spans_project_start/);
      // spans_project_conversation: the spans of one conversation, newest first (the spans list filtered by conversation).
      const conv = whereOf(parseScope({ project_id: 'p', query: { $expr: { $eq: [{ $getField: 'gen_ai.conversation.id' }, { $literal: 'c' }] } } }));
      expect(plan(`SELECT s.id FROM spans s WHERE ${conv.sql} ORDER BY ${order.sql} LIMIT 100`, ...conv.params, ...order.params)).toMatch(/USING (COVERING )?INDEX spans_project_conversation/);
      // No agent index (spans_project_agent, 0016, dropped in 0025: 33 bytes a span): the spans of one
      // agent page newest first through spans_project_start, and their count is the agent's summary row.
      const agent = whereOf(parseScope({ project_id: 'p', query: { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: 'a' }] } } }));
      expect(plan(`SELECT s.id FROM spans s WHERE ${agent.sql} ORDER BY ${order.sql} LIMIT 100`, ...agent.params, ...order.params)).toMatch(/USING INDEX spans_project_start/);
      // … while an export by conversation finds its traces through the turn index, not spans.
      expect(plan(EXPORT_SQL.selectedTraces, { project_id: 'p', trace_ids: '[]', conversation_ids: '["c"]' })).toMatch(/conversation_turns/);
      // No group-by index (spans_group_cover, dropped in 0013: 137 bytes a span): a group-by the rollups
      // do not answer (here: a condition on a custom attribute) reads the table once; without one, or
      // with a condition over the rollups' key columns, group-by agent_name reads the rollups
      // (migrations 0012, 0020), not spans.
      const groupOf = (extra: Record<string, unknown>) => {
        const q = parseSpansQuery(spansInput({ project_id: 'p', group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 10, measures: [{ alias: 't', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }], ...extra }));
        if (q.mode !== 'group') throw new Error('not a group request');
        return q.plan;
      };
      const writable = openStoreFile(store.file);
      // A project that holds the table: a scan reads it front to back rather than through a project index.
      writable.prepare("INSERT INTO spans (project_id, trace_id, span_id, span_name, ingested_at_ms) VALUES ('p', 't', 's', 'n', 0)").run();
      expect(explainGroup(writable, groupOf({ query: { $expr: { $eq: [{ $getField: 'tier' }, { $literal: 'gold' }] } } })).join('\n')).toMatch(/^SCAN s$/m);
      // … the per-day layer of them without a time window (0028, decision 0026).
      expect(explainGroup(writable, groupOf({})).join('\n')).toMatch(/SEARCH s USING INDEX span_rollup_days_day/);
      expect(explainGroup(writable, groupOf({ query: { $expr: { $eq: [{ $getField: 'status_code' }, { $literal: 'ERROR' }] } } })).join('\n')).toMatch(/SEARCH s USING INDEX span_rollup_days_day/);
      writable.close();
    } finally {
      db.close();
    }
  });
});
