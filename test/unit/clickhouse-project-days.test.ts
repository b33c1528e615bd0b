/**
 * The ClickHouse adapter's kept day rows (migration 0011, store/clickhouse/project-days.ts) on a real server:
 * the projects list, the agents list, the filter choices and the Spans list's count (whole, one agent) read
 * one row per (project, day), and answer exactly what the per-trace rows answered (trace_summaries,
 * agent_trace_stats, conversation_summaries) and what a count of the spans gives — after re-imports that
 * move spans to another agent and conversation, a late child that takes the counting role, two writers
 * importing the same file at once, and deletes by age and by trace; the rows equal a recompute from every
 * span; a planted row shows the answers come from them; a store filled before 0011 is filled by it. The
 * threads page in its default order (thread_ends, 0012) pages exactly as the whole sort, and thread_turns
 * (0013) holds conversation_turns' rows throughout.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentRowOut, TraceStore } from '../../src/main/store/ports.js';
import { isoFromNs } from '../../src/main/domain/time.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { DAYS_HEAD, DAYS_MID, DAYS_TAIL } from '../../src/main/store/clickhouse/project-days.js';
import traceDaysMigration from '../../src/main/store/clickhouse/migrations/0014_trace_days.js';
import { raw, sql, str } from '../../src/main/store/clickhouse/sql.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { chatAttributes, importRequest, traceBuilder } from '../helpers/otlp.js';
import { ALWAYS, rounded } from '../helpers/rollup-compare.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { clickhouseService } from '../helpers/clickhouse-service.js';

const P = 'bench/genai';
const OTHER = 'other/project';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chdays-'));
const { call, open } = clickhouseService();

async function withCh<T>(url: string, fn: (ch: ClickHouse) => Promise<T>): Promise<T> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    return await fn(ch);
  } finally {
    await ch.close();
  }
}

const FINAL = ' SETTINGS optimize_move_to_prewhere = 0';
/** Migration 0014's fill of trace_days from every current span (version 0). */
const TRACE_DAYS_BACKFILL = traceDaysMigration[traceDaysMigration.length - 1]!;

/** How a store's writer kept its day rows so far: updated from contributions, or recomputed from the day's spans. */
const dayStats = (s: TraceStore) => (s as unknown as { writer: { dayStats: { deltas: number; recomputed: number } } }).writer.dayStats;

/** What the per-trace rows answer (the reads before 0011), and counts of the spans themselves. */
async function fromTraceRows(url: string) {
  return withCh(url, async (ch) => {
    const projects = await ch.rows<Record<string, unknown>>(
      raw(`SELECT project_id, toString(sum(span_count)) AS spans, toString(max(last_start_ns)) AS last FROM trace_summaries FINAL WHERE deleted = 0
           GROUP BY project_id ORDER BY project_id${FINAL}`),
    );
    const agents = await ch.rows<Record<string, unknown>>(
      sql`SELECT agent_name, sum(span_count) AS span_count, sum(invocation_count) AS invocation_count, sum(error_count) AS error_count,
            toString(sum(duration_ns)) AS duration_ns, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
            round(sum(cost_usd), 9) AS cost_usd, toString(min(first_ns)) AS first_ns, toString(max(last_ns)) AS last_ns, sum(usage_spans) AS usage_spans
          FROM agent_trace_stats FINAL WHERE project_id = ${str(P)} AND deleted = 0 GROUP BY agent_name HAVING span_count > 0 ORDER BY agent_name${raw(FINAL)}`,
    );
    const models = await ch.rows<{ v: string }>(
      sql`SELECT DISTINCT arrayJoin(request_models) AS v FROM conversation_summaries FINAL WHERE project_id = ${str(P)} AND deleted = 0 ORDER BY v${raw(FINAL)}`,
    );
    const counts = await ch.rows<{ agent: string | null; n: string }>(
      sql`SELECT agent_name AS agent, toString(count()) AS n FROM spans FINAL WHERE project_id = ${str(P)} AND deleted = 0 GROUP BY agent_name ORDER BY agent_name${raw(FINAL)}`,
    );
    return { projects, agents, models: models.map((r) => r.v), counts };
  });
}

/** The same from the kept day rows, through the store's own reads. */
async function fromStore(s: TraceStore) {
  const projects = (await s.projects()).map((p) => ({ project_id: p.project_id, spans: String(p.span_count), last: p.last_activity }));
  const agents = (await s.agents({ project_id: P, agent_name: null, include_costs: true, sort: [{ field: 'agent_name', direction: 'asc' }], limit: 1000, offset: 0 })).agents;
  const facets = await s.conversationFacets(P);
  const list = (where: unknown) => call(s, 'spans.query', { project_id: P, limit: 1, offset: 0, sort_by: [{ field: 'started_at', direction: 'desc' }], ...(where ? { query: where } : {}) });
  const whole = (await list(null)).total_count as number;
  const byAgent: Record<string, number> = {};
  for (const a of facets.agent_names) {
    byAgent[a] = (await list({ $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: a }] } })).total_count;
    // The same count by a scan (a condition the kept rows do not answer).
    expect((await list({ $expr: { $and: [{ $eq: [{ $getField: 'agent_name' }, { $literal: a }] }, ALWAYS.$expr] } })).total_count).toBe(byAgent[a]);
  }
  expect((await list(ALWAYS)).total_count).toBe(whole);
  return { projects, agents, facets, whole, byAgent };
}

async function check(s: TraceStore, url: string): Promise<void> {
  // The summaries of every stored batch are written (writes answer when stored; rounds follow).
  await s.settled?.();
  const want = await fromTraceRows(url);
  const got = await fromStore(s);
  expect([...got.projects].sort((a, b) => a.project_id.localeCompare(b.project_id))).toEqual(
    want.projects.map((p) => ({ project_id: p.project_id, spans: p.spans, last: isoFromNs(BigInt(p.last as string)) })),
  );
  const agentOf = (a: AgentRowOut) => ({
    agent_name: a.agent_name, span_count: a.span_count, invocation_count: a.invocation_count, error_count: a.error_count,
    duration_ms: a.total_duration_ms, input_tokens: a.total_input_tokens, output_tokens: a.total_output_tokens, cost_usd: a.total_cost_usd,
    first: a.first_seen, last: a.last_seen, usage_known: a.usage_known,
  });
  expect(rounded(got.agents.map(agentOf))).toEqual(
    rounded(want.agents.map((a) => ({
      agent_name: a.agent_name, span_count: Number(a.span_count), invocation_count: Number(a.invocation_count), error_count: Number(a.error_count),
      duration_ms: Number(BigInt(a.duration_ns as string) / 1_000_000n), input_tokens: Number(a.input_tokens), output_tokens: Number(a.output_tokens),
      cost_usd: a.cost_usd, first: isoFromNs(BigInt(a.first_ns as string)), last: isoFromNs(BigInt(a.last_ns as string)), usage_known: Number(a.usage_spans) > 0,
    }))),
  );
  expect(got.agents.length).toBeGreaterThan(1);
  expect(got.facets.agent_names).toEqual(want.agents.map((a) => a.agent_name));
  expect(got.facets.request_models).toEqual(want.models);
  expect(got.whole).toBe(want.counts.reduce((n, c) => n + Number(c.n), 0));
  expect(got.byAgent).toEqual(Object.fromEntries(want.counts.filter((c) => c.agent !== null).map((c) => [c.agent, Number(c.n)])));
  // The kept rows are exactly a recompute from every current span (days left empty read as nothing).
  await withCh(url, async (ch) => {
    await ch.command(raw('DROP TABLE IF EXISTS project_days_check'));
    await ch.command(raw('CREATE TABLE project_days_check AS project_days'));
    await ch.command(raw(`${DAYS_HEAD.replace('INSERT INTO project_days ', 'INSERT INTO project_days_check ')}0${DAYS_MID}spans FINAL WHERE deleted = 0${DAYS_TAIL}` as 'x'));
    const columns = 'project_id, day, span_count, last_start_ns, agent_name, agent_spans, agent_invocations, agent_errors, agent_dur_ns, agent_in_tok, agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns, agent_last_ns, request_models';
    const rows = (table: string) => ch.rows<Record<string, unknown>>(raw(`SELECT ${columns} FROM ${table} FINAL WHERE span_count > 0 ORDER BY project_id, day${FINAL}` as 'x'));
    // Agents in name order (groupArray's order is the server's), models sorted.
    const sorted = (list: Record<string, unknown>[]) =>
      list.map((r) => {
        const names = r.agent_name as string[];
        const order = names.map((_, i) => i).sort((x, y) => (names[x]! < names[y]! ? -1 : 1));
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(r)) out[k] = k.startsWith('agent_') ? order.map((i) => (v as unknown[])[i]) : k === 'request_models' ? [...(v as string[])].sort() : v;
        return out;
      });
    const kept = sorted(await rows('project_days'));
    expect(kept.length).toBeGreaterThan(0);
    expect(rounded(kept)).toEqual(rounded(sorted(await rows('project_days_check'))));
    await ch.command(raw('DROP TABLE project_days_check'));
    // Each trace's contribution (trace_days, 0014) is a recompute from its spans too: what a day row is updated by.
    await ch.command(raw('DROP TABLE IF EXISTS trace_days_check'));
    await ch.command(raw('CREATE TABLE trace_days_check AS trace_days'));
    await ch.command(raw(TRACE_DAYS_BACKFILL.replace('INSERT INTO trace_days ', 'INSERT INTO trace_days_check ') as 'x'));
    const traceRows = (table: string) =>
      ch.rows<Record<string, unknown>>(raw(`SELECT trace_id, ${columns} FROM ${table} FINAL WHERE span_count > 0 ORDER BY project_id, day, trace_id${FINAL}` as 'x'));
    const contributions = sorted(await traceRows('trace_days'));
    expect(contributions.length).toBeGreaterThan(kept.length);
    expect(rounded(contributions)).toEqual(rounded(sorted(await traceRows('trace_days_check'))));
    await ch.command(raw('DROP TABLE trace_days_check'));
  });
  await expectThreadTurns(url);
}

/** thread_turns (0013) holds conversation_turns' rows: the same newest row of every turn, tombstones included. */
async function expectThreadTurns(url: string): Promise<void> {
  await withCh(url, async (ch) => {
    const cols = 'project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms, version, deleted';
    const of = (t: string) => ch.rows(raw(`SELECT ${cols} FROM ${t} FINAL ORDER BY project_id, conversation_id, trace_id${FINAL}` as 'x'));
    const turns = await of('conversation_turns');
    expect(turns.length).toBeGreaterThan(0);
    expect(await of('thread_turns')).toEqual(turns);
  });
}

/** Traces that move the kept rows: no agent, no conversation, two agents in one trace, another project. */
async function edgeTraces(s: TraceStore, agentOfChat = 'edge', convOfB = 'edge-b'): Promise<void> {
  const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
  const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
  t.span('chat m', { parent: root, at: 10, durationMs: 300, status: 'ERROR', attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: 'x' }], output: [{ role: 'assistant', content: 'y' }], inputTokens: 50, outputTokens: 5, conversationId: convOfB, agentName: agentOfChat }) });
  t.span('tool t', { parent: root, at: 400, durationMs: 0, attributes: { 'gen_ai.operation.name': 'execute_tool' } });
  await importRequest({ traces: s }, P, t.request());
  const u = traceBuilder({ seed: 'edge-2', start: '2026-12-03T11:00:00Z' });
  const r2 = u.span('orphan work', { durationMs: 100 });
  u.span('chat m', { parent: r2, at: 5, durationMs: 50, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 7, outputTokens: 3, agentName: 'loner' }) });
  // A dated trace with a span on day 0 too: its row's days are day 0 and its dated days, not every day since 1970.
  u.span('chat epoch child', { parent: r2, at: 5_000 - Date.parse('2026-12-03T11:00:00Z'), durationMs: 10, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 1, outputTokens: 1, agentName: 'loner' }) });
  await importRequest({ traces: s }, P, u.request());
  const v = traceBuilder({ seed: 'edge-3', start: '2026-12-04T11:00:00Z' });
  v.span('chat elsewhere', { durationMs: 50, attributes: chatAttributes({ model: 'o3', inputTokens: 1, outputTokens: 1, agentName: 'far' }) });
  await importRequest({ traces: s }, OTHER, v.request());
  // Day 0 (a start in 1970; spans without a start or past 2149 go there too), which 18.16 sends back as '0000-00-00'.
  const z = traceBuilder({ seed: 'edge-4', start: '1970-01-01T00:00:02Z' });
  z.span('chat epoch', { durationMs: 1000, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 2, outputTokens: 1, agentName: 'epoch' }) });
  await importRequest({ traces: s }, P, z.request());
}

describe('ClickHouse kept day rows', () => {
  it('answer the projects, agents, filter choices and the Spans count as the per-trace rows do, through re-imports, two writers and deletes', async () => {
    const { url } = await freshClickHouseStore('days');
    const s = await open(url);
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 12, agents: 4, minSpans: 600, seed: 9 });
    await importFile(s, file);
    await edgeTraces(s);
    await check(s, url);
    // The import's rounds after the first updated day rows from their traces' contributions (a day is recomputed
    // from its spans only for a change arithmetic cannot undo, or another writer's overlapping window).
    expect(dayStats(s).deltas).toBeGreaterThan(0);
    // A span moves to another agent and conversation; a late child takes the counting role from its parent.
    await edgeTraces(s, 'moved-agent', 'edge-c');
    const t = traceBuilder({ seed: 'edge-1', start: '2026-12-02T10:00:00Z' });
    const root = t.span('invoke_agent edge', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'edge', 'gen_ai.conversation.id': 'edge-a', 'gen_ai.usage.input_tokens': 50 } });
    t.span('late chat', { parent: root, at: 500, durationMs: 100, attributes: chatAttributes({ model: 'gpt-4o', inputTokens: 11, outputTokens: 2, conversationId: 'edge-a' }) });
    await importRequest({ traces: s }, P, t.request());
    await check(s, url);
    // Two writers (two adapter instances) import the same file at once; the first re-imports it too.
    const other = await open(url);
    await Promise.all([importFile(s, file), importFile(other, file)]);
    await check(s, url);
    await check(other, url);
    // Two writers store different new traces into one day at once: the day row must end up holding both
    // (a writer adding its traces to a row the other replaced meanwhile would lose the other's).
    const burst = async (store: TraceStore, tag: string) => {
      for (let i = 0; i < 6; i++) {
        const b = traceBuilder({ seed: `burst-${tag}-${i}`, start: `2026-12-02T12:0${i}:00Z` });
        const r = b.span('invoke_agent burst', { durationMs: 100 + i, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': `burst-${tag}`, 'gen_ai.conversation.id': `burst-${tag}-${i}` } });
        b.span('chat m', { parent: r, at: 5, durationMs: 50, attributes: chatAttributes({ model: `model-${tag}`, inputTokens: 3 + i, outputTokens: 1, agentName: `burst-${tag}` }) });
        await importRequest({ traces: store }, P, b.request());
      }
    };
    await Promise.all([burst(s, 'a'), burst(other, 'b')]);
    await other.settled?.();
    await check(s, url);
    // Deletes: the project's oldest traces, then a trace by id, then a whole day's traces by age (its day left empty).
    await call(s, 'spans.delete', { project_id: P, older_than: '2026-10-01T00:05:00Z' });
    await call(s, 'spans.delete', { project_id: P, trace_ids: [t.traceId] });
    await check(s, url);
    await call(s, 'spans.delete', { project_id: OTHER, older_than: '2027-01-01T00:00:00Z' });
    await check(s, url);
    expect((await s.projects()).map((p) => p.project_id)).toEqual([P]);
    // The answers come from the kept rows: a row no span backs shows up in them.
    await withCh(url, (ch) =>
      ch.insertJsonEachRow('project_days', JSON.stringify({ project_id: P, day: '2030-01-01', version: 1, span_count: 1, agent_name: ['planted'], agent_spans: [1], agent_invocations: [0], agent_errors: [0], agent_dur_ns: [0], agent_in_tok: [0], agent_out_tok: [0], agent_usage_spans: [0], agent_cost: [null], agent_first_ns: [null], agent_last_ns: [null], request_models: ['planted-model'] })),
    );
    expect((await s.agents({ project_id: P, agent_name: 'planted', include_costs: false, sort: [{ field: 'agent_name', direction: 'asc' }], limit: 10, offset: 0 })).agents.map((a) => a.span_count)).toEqual([1]);
    expect((await s.conversationFacets(P)).request_models).toContain('planted-model');
  }, 300_000);

  it('a store filled before migration 0011 is filled by it', async () => {
    const { url } = await freshClickHouseStore('daysold');
    const s = await open(url);
    const file = path.join(dir, 'gen-old.jsonl');
    await generateJsonl(file, { conversations: 6, agents: 3, minSpans: 300, seed: 4 });
    await importFile(s, file);
    await edgeTraces(s);
    await s.settled?.();
    const before = await fromStore(s);
    await s.close();
    // Back to the store as migration 0010 left it: no kept day rows, thread ends or thread turns, no record of 0011 on.
    await withCh(url, async (ch) => {
      for (const t of ['project_days', 'thread_ends_feed', 'thread_ends', 'thread_turns_feed', 'thread_turns', 'trace_days', 'day_writes']) await ch.command(raw(`DROP TABLE ${t}` as 'x'));
      await ch.command(raw('ALTER TABLE schema_migrations DELETE WHERE version >= 11'));
      for (let i = 0; i < 100; i++) {
        const left = await ch.rows<{ n: string }>(raw('SELECT count() AS n FROM schema_migrations FINAL WHERE version >= 11'));
        if (Number(left[0]!.n) === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    const reopened = await open(url);
    expect(rounded(await fromStore(reopened))).toEqual(rounded(before));
    await check(reopened, url);
  }, 180_000);
});

describe('ClickHouse threads in the default order', () => {
  it('pages the newest threads from the days they ended exactly as the whole list, through a turn moved earlier and deletes', async () => {
    const { url } = await freshClickHouseStore('threadends');
    const s = await open(url);
    // Ten conversations with one to three turns each, on days spread over three weeks (some a day apart, two on the last day).
    const turn = async (conv: string, seed: string, start: string, durationMs: number) => {
      const t = traceBuilder({ seed, start });
      t.span('invoke_agent a', { durationMs, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': conv } });
      await importRequest({ traces: s }, P, t.request());
      return t.traceId;
    };
    const ids: string[] = [];
    for (let c = 0; c < 10; c++) {
      for (let k = 0; k <= c % 3; k++) {
        const day = 1 + ((c * 2 + k * 3) % 20);
        ids.push(await turn(`conv-${c}`, `conv-${c}-${k}`, `2026-11-${String(day).padStart(2, '0')}T${String(10 + c).padStart(2, '0')}:00:00Z`, 1000 * (c + 1)));
      }
    }
    // The newest thread's turn starts late on one day and ends on the next.
    await turn('conv-last-a', 'last-a', '2026-11-21T00:30:00Z', 500);
    await turn('conv-last-b', 'last-b', '2026-11-20T23:00:00Z', 7_200_000);
    await turn('conv-late', 'late', '2026-11-20T23:40:00Z', 1000);
    const all = async () => {
      const out: unknown[] = [];
      for await (const t of s.threads({ project_id: P, after_ns: null, before_ns: null, thread_ids: null, sort: [{ field: 'last_updated', direction: 'desc' }, { field: 'thread_id', direction: 'asc' }], limit: 1000, offset: 0 })) out.push(t);
      return out as { thread_id: string }[];
    };
    const expectSame = async () => {
      const whole = await all();
      const ids = whole.map((t) => t.thread_id);
      expect(ids.length).toBeGreaterThan(5);
      for (const [offset, limit] of [[0, 1], [0, 2], [0, 3], [1, 2], [2, 4], [0, 20], [5, 3], [11, 5]] as const) {
        const page: unknown[] = [];
        for await (const t of s.threads({ project_id: P, after_ns: null, before_ns: null, thread_ids: null, sort: [{ field: 'last_updated', direction: 'desc' }, { field: 'thread_id', direction: 'asc' }], limit, offset })) page.push(t);
        // The same page through the whole sort (a list of ids takes the other path).
        const sorted: unknown[] = [];
        for await (const t of s.threads({ project_id: P, after_ns: null, before_ns: null, thread_ids: ids, sort: [{ field: 'last_updated', direction: 'desc' }, { field: 'thread_id', direction: 'asc' }], limit, offset })) sorted.push(t);
        expect(page, `${offset}/${limit}`).toEqual(sorted);
        expect(page).toEqual(whole.slice(offset, offset + limit));
      }
    };
    await expectSame();
    expect((await all())[0]!.thread_id).toBe('conv-last-b');
    // Its turn written again ending half an hour after its start, the day before: its old end day stays in thread_ends
    // (a candidate of the newest day that ended before it, after conv-late: the page's check widens the window).
    await turn('conv-last-b', 'last-b', '2026-11-20T23:00:00Z', 1_800_000);
    await s.settled?.();
    await expectSame();
    expect((await all())[0]!.thread_id).toBe('conv-last-a');
    await call(s, 'spans.delete', { project_id: P, trace_ids: [ids[ids.length - 1]!] });
    await expectSame();
    await expectThreadTurns(url);
  }, 180_000);
});
