/**
 * Group-by agent_name from the ClickHouse adapter's span rollups (migration 0003) on a real server:
 * for every measure the rollups keep, several sorts, paging and a group filter, the rows equal the
 * scan's (the same request with a condition every span meets, which the rollups do not answer) —
 * after re-imports that move a span to another conversation, a late child that takes the counting
 * role, spans without an agent or a conversation, deletes, and two writers importing overlapping
 * batches at once; a store filled before the rollups existed is rolled up by the migration.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TraceStore } from '../../src/main/store/ports.js';
import type { ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { ident, raw, sql } from '../../src/main/store/clickhouse/sql.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, traceBuilder } from '../helpers/otlp.js';
import { ALWAYS, MEASURES, rounded } from '../helpers/rollup-compare.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { clickhouseService } from '../helpers/clickhouse-service.js';

const P = 'bench/genai';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chrollups-'));
const { call, open } = clickhouseService();

async function expectSameAsScan(s: TraceStore, body: Record<string, unknown>): Promise<void> {
  const base = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 1000, ...body };
  const fromRollups = await call(s, 'spans.query', base);
  const scanned = await call(s, 'spans.query', { ...base, query: ALWAYS });
  expect(fromRollups.groups.length, JSON.stringify(body)).toBeGreaterThan(0);
  expect(rounded(fromRollups), JSON.stringify(body)).toEqual(rounded(scanned));
}

async function check(s: TraceStore): Promise<void> {
  await expectSameAsScan(s, { measures: MEASURES });
  for (const sort of [{ field: 'span_count', direction: 'desc' }, { field: 'agent_name', direction: 'asc' }, { field: 'total_cost_usd', direction: 'asc' }, { field: 'last_seen', direction: 'desc' }]) {
    await expectSameAsScan(s, { measures: MEASURES.slice(0, 4), sort_by: [sort], limit: 3, offset: 1 });
  }
  await expectSameAsScan(s, { measures: [{ alias: 't', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }], group_filters: [{ measure: { aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }, min: 1 }] });
  await expectSameAsScan(s, { measures: [], include_costs: false });
}

/** Traces that make the rollups work: no agent, no conversation, two conversations in one trace. */
async function edgeTraces(s: TraceStore, convOfB = 'edge-b'): Promise<void> {
  const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
  const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
  t.span('chat m', { parent: root, at: 10, durationMs: 300, status: 'ERROR', attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: 'x' }], output: [{ role: 'assistant', content: 'y' }], inputTokens: 50, outputTokens: 5, conversationId: convOfB }) });
  t.span('tool t', { parent: root, at: 400, durationMs: 0, attributes: { 'gen_ai.operation.name': 'execute_tool' } });
  await importRequest({ traces: s }, P, t.request());
  const u = traceBuilder({ seed: 'edge-2', start: '2026-12-02T11:00:00Z' });
  const r2 = u.span('orphan work', { durationMs: 100 });
  u.span('chat m', { parent: r2, at: 5, durationMs: 50, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 7, outputTokens: 3, agentName: 'loner' }) });
  await importRequest({ traces: s }, P, u.request());
}

/** The rollup rows the server holds for the project (newest version of each unit). */
async function rollupUnits(url: string): Promise<number> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const r = await ch.rows<{ n: string }>(raw("SELECT count() AS n FROM span_rollups FINAL WHERE project_id = 'bench/genai' AND notEmpty(agent_name)"));
    return Number(r[0]!.n);
  } finally {
    await ch.close();
  }
}

describe('ClickHouse span rollups', () => {
  it('answer group-by agent_name exactly as the scan does, through re-imports, deletes and two writers', async () => {
    const { url } = await freshClickHouseStore('rollups');
    const s = await open(url);
    // This file pins span_rollups; the day layer read once its fill is done has its own (clickhouse-rollup-days).
    (s as ClickHouseTraceStore).rollupDays = 'off';
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 12, agents: 4, minSpans: 600, seed: 9 });
    await importFile(s, file);
    await edgeTraces(s);
    expect(await rollupUnits(url)).toBeGreaterThan(12);
    await check(s);
    // A span moves to another conversation; a late child takes the counting role from its parent.
    await edgeTraces(s, 'edge-c');
    const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
    const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
    t.span('late chat', { parent: root, at: 500, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 11, outputTokens: 2, agentName: 'edge', conversationId: 'edge-a' }) });
    await importRequest({ traces: s }, P, t.request());
    await check(s);
    // Two writers (two adapter instances) import the same file at once; the first re-imports it too.
    const other = await open(url);
    (other as ClickHouseTraceStore).rollupDays = 'off';
    await Promise.all([importFile(s, file), importFile(other, file)]);
    await check(s);
    await check(other);
    // Deletes: the project's oldest traces, then a trace by id.
    await call(s, 'spans.delete', { project_id: P, older_than: '2026-10-01T02:00:00Z' });
    await call(s, 'spans.delete', { project_id: P, trace_ids: [t.traceId] });
    await check(s);
    // The answer comes from the rollups: a rollup row no span backs shows up in it (and not in the scan).
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      // One element in every array column: an agent 'planted' with one span and no other value.
      const columns = await ch.rows<{ name: string; type: string }>(raw('DESCRIBE TABLE span_rollups'));
      const element = (type: string): unknown => (type === 'Array(String)' ? [] : type.includes('Nullable') ? null : 1);
      const row: Record<string, unknown> = { project_id: P, unit_kind: 'trace', unit_id: 'planted', version: 1 };
      for (const c of columns) if (c.type.startsWith('Array(')) row[c.name] = [element(c.type.slice(6, -1))];
      row.agent_name = ['planted'];
      await ch.insertJsonEachRow('span_rollups', JSON.stringify(row));
    } finally {
      await ch.close();
    }
    const body = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], measures: [], limit: 1000 };
    const keys = async (b: object) => ((await call(s, 'spans.query', b)).groups as { group_keys: { agent_name: string | null } }[]).map((g) => g.group_keys.agent_name);
    expect(await keys(body)).toContain('planted');
    expect(await keys({ ...body, query: ALWAYS })).not.toContain('planted');
  }, 300_000);

  it('a store filled before migration 0003 is rolled up by it', async () => {
    const { url } = await freshClickHouseStore('rollupsold');
    const s = await open(url);
    const file = path.join(dir, 'gen-old.jsonl');
    await generateJsonl(file, { conversations: 6, agents: 3, minSpans: 300, seed: 4 });
    await importFile(s, file);
    await edgeTraces(s);
    const body = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 100, measures: MEASURES };
    const scanned = await call(s, 'spans.query', { ...body, query: ALWAYS });
    await s.close();
    // Back to the store as migration 0002 left it: no rollups table (nor the later migrations' tables), no record of 0003 on.
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      for (const t of ['span_rollups', 'trace_keys', 'conversation_keys', 'write_journal']) await ch.command(sql`DROP TABLE ${ident(t)}`);
      await ch.command(raw('ALTER TABLE schema_migrations DELETE WHERE version >= 3'));
      for (let i = 0; i < 100; i++) {
        const left = await ch.rows<{ n: string }>(raw('SELECT count() AS n FROM schema_migrations FINAL WHERE version >= 3'));
        if (Number(left[0]!.n) === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await ch.close();
    }
    const reopened = await open(url);
    (reopened as ClickHouseTraceStore).rollupDays = 'off';
    expect(await rollupUnits(url)).toBeGreaterThan(6);
    expect(rounded(await call(reopened, 'spans.query', body))).toEqual(rounded(scanned));
  }, 180_000);
});
