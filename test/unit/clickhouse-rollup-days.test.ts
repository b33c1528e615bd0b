/**
 * The rollups' day layer of the ClickHouse adapter (migration 0015, rollup-days.ts) on a real server: the group view
 * (group by agent_name, every measure the rollups keep, sorts, paging, a group filter) read from one row per day
 * equals the scan's answer — with a conversation running across midnight (its agent's conversation count stays 1
 * though it has rows on two days), a re-import that moves a span to another day and conversation, a late child that
 * takes the counting role, two writers importing at once, and deletes by age and by trace; a planted layer row shows
 * in the answer (it is what is read); a store filled before 0015 is filled at open in the background and answers
 * the same before and after. Also conversation_rows (migration 0016: the list's rows in small granules, fed by a view
 * from conversation_summaries): its newest rows equal conversation_summaries' through the same writes, and an older store
 * is filled by the migration.
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chrollupdays-'));
const { call, open } = clickhouseService();

const GROUP = { project_id: P, group_by: [{ key: 'agent_name', source: 'field' }], include_costs: true, limit: 1000 };

async function expectSameAsScan(s: TraceStore, body: Record<string, unknown>): Promise<void> {
  const base = { ...GROUP, ...body };
  const fromLayer = await call(s, 'spans.query', base);
  const scanned = await call(s, 'spans.query', { ...base, query: ALWAYS });
  if (!body.offset) expect(fromLayer.groups.length, JSON.stringify(body)).toBeGreaterThan(0);
  expect(rounded(fromLayer), JSON.stringify(body)).toEqual(rounded(scanned));
}

async function check(s: TraceStore): Promise<void> {
  await expectSameAsScan(s, { measures: MEASURES });
  for (const sort of [{ field: 'span_count', direction: 'desc' }, { field: 'conversation_count', direction: 'desc' }, { field: 'total_cost_usd', direction: 'asc' }, { field: 'last_seen', direction: 'desc' }]) {
    await expectSameAsScan(s, { measures: MEASURES.slice(0, 4), sort_by: [sort], limit: 3, offset: 1 });
  }
  await expectSameAsScan(s, { measures: [{ alias: 't', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }], group_filters: [{ measure: { aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } }, min: 1 }] });
  await expectSameAsScan(s, { measures: [], include_costs: false });
}

/** One conversation of agent 'owl' with a turn on each side of midnight; `late` moves the second turn's chat span to 'owl-b'. */
async function midnight(s: TraceStore, opts: { secondAt?: string; conv?: string } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (const [seed, start] of [['owl-1', '2026-12-02T23:59:00Z'], ['owl-2', opts.secondAt ?? '2026-12-03T00:01:00Z']] as const) {
    const t = traceBuilder({ seed, start });
    const root = t.span('invoke_agent owl', { durationMs: 400, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'owl', 'gen_ai.conversation.id': 'night' } });
    t.span('chat m', { parent: root, at: 10, durationMs: 200, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 20, outputTokens: 4, agentName: 'owl', conversationId: seed === 'owl-2' ? (opts.conv ?? 'night') : 'night' }) });
    await importRequest({ traces: s }, P, t.request());
    ids.push(t.traceId);
  }
  return ids;
}

/** The layer's rows (newest version of each day) holding agents. */
async function layerDays(url: string): Promise<number> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const r = await ch.rows<{ n: string }>(raw("SELECT count() AS n FROM rollup_days FINAL WHERE project_id = 'bench/genai' AND notEmpty(agent_name)"));
    return Number(r[0]!.n);
  } finally {
    await ch.close();
  }
}

/** conversation_rows' newest rows equal conversation_summaries' (every column, tombstones too). */
async function expectSameRows(url: string): Promise<void> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const read = (t: 'conversation_summaries' | 'conversation_rows') =>
      ch.rows(t === 'conversation_rows'
        ? raw('SELECT * FROM conversation_rows FINAL ORDER BY project_id, conversation_id, kind SETTINGS optimize_move_to_prewhere = 0')
        : raw('SELECT * FROM conversation_summaries FINAL ORDER BY project_id, conversation_id, kind SETTINGS optimize_move_to_prewhere = 0'));
    const rows = await read('conversation_rows');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows).toEqual(await read('conversation_summaries'));
  } finally {
    await ch.close();
  }
}

const owl = async (s: TraceStore) => ((await call(s, 'spans.query', { ...GROUP, measures: [] })).groups as { group_keys: { agent_name: string | null }; conversation_count: number }[])
  .find((g) => g.group_keys.agent_name === 'owl');

describe('ClickHouse rollups day layer', () => {
  it('answers the group view exactly as the scan does, through midnight, re-imports, two writers and deletes', async () => {
    const { url } = await freshClickHouseStore('rollupdays');
    const s = await open(url);
    await (s as ClickHouseTraceStore).fillRollupDays();
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 12, agents: 4, minSpans: 600, seed: 9 });
    await importFile(s, file);
    await midnight(s);
    await expect.poll(() => layerDays(url)).toBeGreaterThan(1);
    await check(s);
    // One conversation with rows on two days counts once (a per-day count summed would say 2).
    expect((await owl(s))?.conversation_count).toBe(1);
    // The second turn's chat span moves to another conversation. (Not to another day: a span re-imported with a start on
    // another day keeps its old version in the old day's partition, which the scan reads as a second span — the scan,
    // not the layer, disagrees with the rollups there; noted in docs/clickhouse.md.)
    await midnight(s, { secondAt: '2026-12-03T00:02:00Z', conv: 'night-b' });
    await check(s);
    expect((await owl(s))?.conversation_count).toBe(2);
    // A late child takes the counting role from its parent.
    const t = traceBuilder({ seed: 'owl-1', start: '2026-12-02T23:59:00Z' });
    const root = t.span('invoke_agent owl', { durationMs: 400, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'owl', 'gen_ai.conversation.id': 'night' } });
    t.span('late chat', { parent: root, at: 300, durationMs: 50, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 9, outputTokens: 1, agentName: 'owl', conversationId: 'night' }) });
    await importRequest({ traces: s }, P, t.request());
    await check(s);
    // Two writers (two adapter instances) import the same file at once.
    const other = await open(url);
    await (other as ClickHouseTraceStore).fillRollupDays();
    await Promise.all([importFile(s, file), importFile(other, file)]);
    await check(s);
    await check(other);
    await expectSameRows(url);
    // Deletes: the project's oldest traces, then the midnight conversation's second trace by id.
    await call(s, 'spans.delete', { project_id: P, older_than: '2026-10-01T02:00:00Z' });
    const [, second] = await midnight(s);
    await call(s, 'spans.delete', { project_id: P, trace_ids: [second] });
    await check(s);
    expect((await owl(s))?.conversation_count).toBe(1);
    await expectSameRows(url);
    // What is read is the layer: a row no span backs shows up in the answer (and not in the scan).
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      const columns = await ch.rows<{ name: string; type: string }>(raw('DESCRIBE TABLE rollup_days'));
      const element = (type: string): unknown => (type === 'Array(String)' ? [] : type.includes('Nullable') ? null : 1);
      const row: Record<string, unknown> = { project_id: P, day: '2001-01-01', version: 1 };
      for (const c of columns) if (c.type.startsWith('Array(')) row[c.name] = [element(c.type.slice(6, -1))];
      row.agent_name = ['planted'];
      await ch.insertJsonEachRow('rollup_days', JSON.stringify(row));
    } finally {
      await ch.close();
    }
    const keys = async (b: object) => ((await call(s, 'spans.query', b)).groups as { group_keys: { agent_name: string | null } }[]).map((g) => g.group_keys.agent_name);
    expect(await keys({ ...GROUP, measures: [] })).toContain('planted');
    expect(await keys({ ...GROUP, measures: [], query: ALWAYS })).not.toContain('planted');
  }, 300_000);

  it('a store filled before migration 0015 is filled at open and answers the same', async () => {
    const { url } = await freshClickHouseStore('rollupdaysold');
    const s = await open(url);
    const file = path.join(dir, 'gen-old.jsonl');
    await generateJsonl(file, { conversations: 6, agents: 3, minSpans: 300, seed: 4 });
    await importFile(s, file);
    await midnight(s);
    const body = { ...GROUP, measures: MEASURES };
    const scanned = await call(s, 'spans.query', { ...body, query: ALWAYS });
    await s.close();
    // Back to the store as migration 0014 left it: no layer, no conversation_rows, no record of 0015 on.
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      for (const t of ['rollup_days', 'unit_days', 'rollup_days_fill']) await ch.command(sql`DROP TABLE ${ident(t)}`);
      await ch.command(raw('DROP TABLE conversation_rows_feed'));
      await ch.command(raw('DROP TABLE conversation_rows'));
      await ch.command(raw('ALTER TABLE schema_migrations DELETE WHERE version >= 15'));
      await expect.poll(async () => Number((await ch.rows<{ n: string }>(raw('SELECT count() AS n FROM schema_migrations FINAL WHERE version >= 15')))[0]!.n)).toBe(0);
    } finally {
      await ch.close();
    }
    const reopened = await open(url);
    // Before its fill the group view reads span_rollups, after it the layer: the same answer either way.
    expect(rounded(await call(reopened, 'spans.query', body))).toEqual(rounded(scanned));
    expect(await (reopened as ClickHouseTraceStore).fillRollupDays()).toBeGreaterThanOrEqual(0);
    await expect.poll(() => layerDays(url)).toBeGreaterThan(1);
    expect(rounded(await call(reopened, 'spans.query', body))).toEqual(rounded(scanned));
    expect((await owl(reopened))?.conversation_count).toBe(1);
    await expectSameRows(url);
  }, 180_000);
});
