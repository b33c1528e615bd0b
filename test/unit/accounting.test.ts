/**
 * One accounting for a conversation, a trace, an agent and a group (issue 18 item 1, decision 0022):
 * the credit rules (domain/accounting.ts) on their own, then on both store adapters — spans that carry
 * the conversation id or the agent only in places, children arriving before their parents in other
 * batches, re-imports — and every view agreeing (test/helpers/views-agree.ts) for the demo and every
 * real emitter trace of test/fixtures/emitters, with SQLite and ClickHouse giving the same totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { creditSpans, INHERITED_AGENT, INHERITED_CONVERSATION, wallTime } from '../../src/main/domain/accounting.js';
import { importBuffer } from '../../src/main/service/ingest/buffer.js';
import { computeCosts, modelIdOf } from '../../src/main/service/ingest/costs.js';
import { calcPrice } from '@pydantic/genai-prices';
import { loadDemo } from '../../src/main/demo/load.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import type { TraceStore } from '../../src/main/store/ports.js';
import { openTestStores, type TestStores } from '../helpers/temp-store.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { traceBuilder, chatAttributes, type SpanHandle } from '../helpers/otlp.js';
import { viewsAgree } from '../helpers/views-agree.js';
import { repoRoot } from '../helpers/paths.js';

const span = (id: string, parent: string | null, own: { agent?: string; conv?: string } = {}, start = 0) => ({
  span_id: id, parent_span_id: parent, start_ns: BigInt(start), agent_name: own.agent ?? null, conversation_id: own.conv ?? null,
});

describe('credit rules (domain/accounting.ts)', () => {
  it('a span is credited to its own agent, else its nearest agent ancestor; its own conversation, else its ancestor’s, else the trace’s', () => {
    const c = creditSpans([
      span('root', null, {}, 0),
      span('agent', 'root', { agent: 'triage', conv: 'c1' }, 1),
      span('chat', 'agent', {}, 2),
      span('sub', 'agent', { agent: 'billing' }, 3),
      span('tool', 'sub', {}, 4),
      span('orphan', 'missing', {}, 5),
    ]);
    expect(Object.fromEntries([...c].map(([id, x]) => [id, [x.agent, x.conversation, x.bits]]))).toEqual({
      root: [null, 'c1', INHERITED_CONVERSATION], // no agent above it; the trace's conversation
      agent: ['triage', 'c1', 0],
      chat: ['triage', 'c1', INHERITED_AGENT | INHERITED_CONVERSATION],
      sub: ['billing', 'c1', INHERITED_CONVERSATION],
      tool: ['billing', 'c1', INHERITED_AGENT | INHERITED_CONVERSATION],
      orphan: [null, 'c1', INHERITED_CONVERSATION], // its parent has not arrived: credited from what is there
    });
  });

  it('in a trace of several conversations each span counts for one: its nearest tagged ancestor’s, else the earliest tagged span’s', () => {
    const c = creditSpans([span('r', null, {}, 0), span('a', 'r', { conv: 'late' }, 5), span('a1', 'a', {}, 6), span('b', 'r', { conv: 'early' }, 2), span('x', 'r', {}, 9)]);
    expect(Object.fromEntries([...c].map(([id, x]) => [id, x.conversation]))).toEqual({ r: 'early', a: 'late', a1: 'late', b: 'early', x: 'early' });
  });

  it('parent cycles end the walk; wall time is first start to last end of the spans that ended', () => {
    const c = creditSpans([span('a', 'b', {}, 0), span('b', 'a', {}, 1)]);
    expect([...c.values()].map((x) => x.agent)).toEqual([null, null]);
    expect(wallTime([{ start_ns: 5n * 10n ** 6n, end_ns: 9n * 10n ** 6n }, { start_ns: 1n * 10n ** 6n, end_ns: null }])).toEqual({ start_ns: 10n ** 6n, end_ns: 9n * 10n ** 6n, duration_ms: 8 });
    expect(wallTime([{ start_ns: 1n, end_ns: null }]).duration_ms).toBeNull();
  });
});

describe('prices', () => {
  it('a model named by a provider resource path (Vertex AI) is priced by its model id', () => {
    const usage = { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: null, cache_creation_input_tokens: null };
    const path = 'projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.0-flash-001';
    expect(modelIdOf(path)).toBe('gemini-2.0-flash-001');
    const byId = computeCosts(usage, null, 'gemini-2.0-flash-001', 'gcp.vertex_ai');
    expect(byId.total_cost_usd).not.toBeNull();
    expect(computeCosts(usage, path, null, 'gcp.vertex_ai')).toEqual(byId);
    expect(computeCosts(usage, null, 'projects/p/locations/l/endpoints/1234567', 'gcp.vertex_ai').total_cost_usd).toBeNull(); // a tuned endpoint: unknown, never 0
  });
});

// ---------------------------------------------------------------------------------------- both stores

interface Opened {
  name: string;
  ctx: ServiceContext;
  close(): Promise<void>;
}
const contextOf = (traces: TraceStore, app: TestStores['app']): ServiceContext => ({ traces, app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' });
const STORES: { name: string; open(): Promise<Opened> }[] = [
  { name: 'sqlite', open: async () => { const s = await openTestStores(); return { name: 'sqlite', ctx: contextOf(s.traces, s.app), close: () => s.close() }; } },
  {
    name: 'clickhouse',
    open: async () => {
      const app = await openTestStores();
      const traces = await openClickHouseTraceStore((await freshClickHouseStore('accounting')).url);
      return { name: 'clickhouse', ctx: contextOf(traces, app.app), close: async () => { await traces.close(); await app.close(); } };
    },
  },
];
const call = async (ctx: ServiceContext, name: string, body: unknown): Promise<any> => dispatch(name, body, ctx);  
const post = (ctx: ServiceContext, project: string, body: unknown) => importBuffer(ctx.traces, Buffer.from(JSON.stringify(body)), { contentType: 'application/json', projectId: project });

/**
 * Two turns of one conversation as a real emitter writes them: the conversation id on the agent span
 * only (turn 1) or on the first model call only (turn 2); the agent name on the agent span only; a
 * sub-agent with its own tool; the agent span mirrors its children's usage.
 */
function partlyTagged(): { turns: ReturnType<typeof traceBuilder>[] } {
  const turns = [0, 1].map((n) => {
    const t = traceBuilder({ seed: `acct-${n}`, start: Date.parse('2026-12-05T10:00:00Z') + n * 60_000 });
    const conv = (onAgent: boolean) => (n === 0 && onAgent) || (n === 1 && !onAgent) ? { 'gen_ai.conversation.id': 'c-acct' } : {};
    const root = t.span('invoke_agent support', { durationMs: 4000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', ...conv(true), 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 90 } });
    const first = t.span('chat gpt-4o-mini', { parent: root, at: 10, durationMs: 700, attributes: { ...chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: `question ${n}` }], output: [{ role: 'assistant', toolCalls: [{ id: `t${n}`, name: 'lookup', arguments: { n } }] }], inputTokens: 300, outputTokens: 30 }), ...conv(false) } });
    void first;
    const sub: SpanHandle = t.span('invoke_agent billing', { parent: root, at: 800, durationMs: 1500, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'billing' } });
    t.span('execute_tool refund', { parent: sub, at: 900, durationMs: 200, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'refund' } });
    t.span('chat gpt-4o-mini', { parent: sub, at: 1200, durationMs: 600, attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: 'refund?' }], output: [{ role: 'assistant', content: 'refunded' }], inputTokens: 200, outputTokens: 20 }) });
    t.span('chat gpt-4o-mini', { parent: root, at: 2400, durationMs: 1500, attributes: chatAttributes({ model: 'gpt-4o-mini', input: [{ role: 'user', content: `question ${n}` }], output: [{ role: 'assistant', content: `answer ${n}` }], inputTokens: 400, outputTokens: 40 }) });
    return t;
  });
  return { turns };
}

/** What each store showed for each project of the corpus test ("store|project"), compared at the end. */
const seen = new Map<string, unknown>();

/** What a project shows, for comparing stores and import orders. */
async function answers(ctx: ServiceContext, project: string) {
  const conversations = (await call(ctx, 'conversations.list', { project_id: project, limit: 1000, sort_by: [{ field: 'conversation_id', direction: 'asc' }] })).conversations
    .map((r: any) => ({ ...r, total_cost_usd: r.total_cost_usd === null ? null : Number(r.total_cost_usd.toFixed(9)), snippet: null }));  
  const agents = (await call(ctx, 'agents.query', { project_id: project, include_costs: true, limit: 1000, sort_by: [{ field: 'agent_name', direction: 'asc' }] })).agents
    .map((a: any) => ({ ...a, project_id: null, total_cost_usd: a.total_cost_usd === null ? null : Number(a.total_cost_usd.toFixed(9)) }));  
  return { conversations, agents };
}

describe.each(STORES)('one accounting on $name', (kind) => {
  let s: Opened;
  beforeAll(async () => {
    s = await kind.open();
  }, 120_000);
  afterAll(() => s.close());

  it('credits spans that carry the conversation or agent only in places, whatever order they arrive in', async () => {
    const { turns } = partlyTagged();
    // Whole traces at once …
    for (const t of turns) await post(s.ctx, 'acct/whole', t.request());
    // … and children first, each in a batch of its own, parents last, then the whole second turn again (a re-import).
    const byBatch = turns.flatMap((t) => [...t.spans()].reverse().map((sp) => [sp]));
    for (const b of byBatch) await post(s.ctx, 'acct/parts', { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans: b }] }] });
    await post(s.ctx, 'acct/parts', turns[1]!.request());
    const whole = await answers(s.ctx, 'acct/whole');
    expect(await answers(s.ctx, 'acct/parts')).toEqual(whole);
    expect(whole.conversations).toMatchObject([
      // Every span of both traces is the conversation's; tokens from the leaves (the agent span mirrors them).
      { conversation_id: 'c-acct', turn_count: 2, span_count: 12, total_input_tokens: 1800, total_output_tokens: 180, usage_known: true },
    ]);
    expect(whole.agents.map((a: { agent_name: string; span_count: number; total_input_tokens: number }) => [a.agent_name, a.span_count, a.total_input_tokens])).toEqual([
      ['billing', 6, 400], // its span, its tool, its model call, in both turns
      ['support', 6, 1400],
    ]);
    for (const project of ['acct/whole', 'acct/parts']) {
      const r = await viewsAgree(s.ctx, project);
      expect(r.problems).toEqual([]);
      expect(r.partlyTagged).toEqual(['c-acct']);
    }
    const chat = await call(s.ctx, 'chat.conversation', { project_id: 'acct/whole', conversation_id: 'c-acct' });
    // Wall time: first span's start to last span's end, per turn and for the conversation (60 s apart, 4 s each).
    expect(chat.turns.map((t: { total_duration_ms: number }) => t.total_duration_ms)).toEqual([4000, 4000]);
    expect(chat.totals).toMatchObject({ duration_ms: 64_000, total_input_tokens: 1800, usage_known: true, span_count: 12 });
  }, 180_000);

  it('a trace whose spans report no usage shows unknown usage, not zero', async () => {
    const t = traceBuilder({ seed: 'nousage', start: '2026-12-06T10:00:00Z' });
    const root = t.span('invoke_agent quiet', { durationMs: 50, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'quiet', 'gen_ai.conversation.id': 'c-quiet' } });
    t.span('execute_tool ping', { parent: root, at: 5, durationMs: 10, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'ping' } });
    await post(s.ctx, 'acct/quiet', t.request());
    const { conversations, agents } = await answers(s.ctx, 'acct/quiet');
    expect(conversations[0]).toMatchObject({ total_input_tokens: 0, usage_known: false, total_cost_usd: null });
    expect(agents[0]).toMatchObject({ agent_name: 'quiet', span_count: 2, usage_known: false });
    const chat = await call(s.ctx, 'chat.conversation', { project_id: 'acct/quiet', conversation_id: 'c-quiet' });
    expect([chat.turns[0].usage_known, chat.totals.usage_known]).toEqual([false, false]);
    expect((await viewsAgree(s.ctx, 'acct/quiet')).problems).toEqual([]);
  }, 60_000);

  it('every view agrees for the demo and for every real emitter trace', async () => {
    await loadDemo(s.ctx, { projectId: 'acct/demo', now: Date.parse('2026-12-07T12:00:00Z') }); // the same demo in both stores
    const demo = await viewsAgree(s.ctx, 'acct/demo');
    expect(demo.problems).toEqual([]);
    seen.set(`${kind.name}|acct/demo`, await answers(s.ctx, 'acct/demo'));
    expect(demo.conversations).toBeGreaterThan(3);
    const root = path.join(repoRoot, 'test/fixtures/emitters');
    const partly: string[] = [];
    let conversations = 0;
    for (const dir of readdirSync(root).filter((d) => existsSync(path.join(root, d, 'trace.json'))).sort()) {
      const project = `emitters/${dir}`;
      await importBuffer(s.ctx.traces, readFileSync(path.join(root, dir, 'trace.json')), { contentType: 'application/json', projectId: project });
      const r = await viewsAgree(s.ctx, project);
      expect(r.problems, dir).toEqual([]);
      seen.set(`${kind.name}|${project}`, await answers(s.ctx, project));
      conversations += r.conversations;
      if (r.partlyTagged.length) partly.push(dir);
    }
    // Real emitters whose spans carry the conversation id only in places (the issue asks for at least five).
    expect(partly.length, partly.join(', ')).toBeGreaterThanOrEqual(5);
    expect(conversations).toBeGreaterThanOrEqual(partly.length);
  }, 600_000);
});

/**
 * The token-accounting fixture set (test/fixtures/accounting, README there): real emitter traces with
 * known right answers for the bug classes of AgentMeasure's audit (re-summed usage, re-emitted spans,
 * cache semantics, alias duplicates). Each total is read through two views (the conversations list and
 * group-by trace_id) and must equal the fixture's expected value; a priced case also its cost.
 */
const ACCOUNTING = path.join(repoRoot, 'test/fixtures/accounting');
const accountingCases = readdirSync(ACCOUNTING).filter((d) => existsSync(path.join(ACCOUNTING, d, 'expect.json'))).sort();

describe.each(STORES)('token-accounting fixtures on $name', (kind) => {
  let s: Opened;
  beforeAll(async () => {
    s = await kind.open();
  }, 120_000);
  afterAll(() => s.close());

  it.each(accountingCases)('%s', async (name) => {
    const spec = JSON.parse(readFileSync(path.join(ACCOUNTING, name, 'expect.json'), 'utf8')) as {
      imports: number;
      expect: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number; priced?: { model: string; calls: [number, number, number, number][] } };
    };
    const project = `fixtures/${name}`;
    for (let i = 0; i < spec.imports; i++) await importBuffer(s.ctx.traces, readFileSync(path.join(ACCOUNTING, name, 'trace.json')), { contentType: 'application/json', projectId: project });
    const rows = (await call(s.ctx, 'conversations.list', { project_id: project, limit: 1000 })).conversations as { total_input_tokens: number; total_output_tokens: number; usage_known: boolean; total_cost_usd: number | null }[];
    const groups = (await call(s.ctx, 'spans.query', { project_id: project, group_by: [{ key: 'trace_id', source: 'field' }], include_costs: true, limit: 1000 })).groups as Record<string, number | null>[];
    const sum = <T>(xs: T[], f: (x: T) => number | null | undefined) => xs.reduce((a, x) => a + (f(x) ?? 0), 0);
    const e = spec.expect;
    expect([sum(rows, (r) => r.total_input_tokens), sum(rows, (r) => r.total_output_tokens)], 'conversations list').toEqual([e.input_tokens, e.output_tokens]);
    expect([sum(groups, (g) => g.total_input_tokens), sum(groups, (g) => g.total_output_tokens)], 'group-by').toEqual([e.input_tokens, e.output_tokens]);
    expect(rows.every((r) => r.usage_known)).toBe(true);
    if (e.cache_read_input_tokens !== undefined) expect(sum(groups, (g) => g.total_cache_read_input_tokens)).toBe(e.cache_read_input_tokens);
    if (e.cache_creation_input_tokens !== undefined) expect(sum(groups, (g) => g.total_cache_creation_input_tokens)).toBe(e.cache_creation_input_tokens);
    if (e.priced) {
      // The price table's own answer for the inclusive usage: cached tokens priced once, at their own rates.
      const want = e.priced.calls.reduce((a, [input, read, write, output]) => a + Number(calcPrice({ input_tokens: input, cache_read_tokens: read, cache_write_tokens: write, output_tokens: output }, e.priced!.model)!.total_price), 0);
      expect(sum(groups, (g) => g.total_cost_usd)).toBeCloseTo(want, 9);
      expect(sum(rows, (r) => r.total_cost_usd)).toBeCloseTo(want, 9);
    }
    expect((await viewsAgree(s.ctx, project)).problems).toEqual([]);
  }, 120_000);
});

describe('SQLite and ClickHouse give the same totals', () => {
  it('for the demo and every emitter trace: the conversations list and the agents (read above on each store)', () => {
    const projects = [...new Set([...seen.keys()].map((k) => k.slice(k.indexOf('|') + 1)))];
    expect(projects.length).toBeGreaterThan(40);
    for (const p of projects) expect(seen.get(`clickhouse|${p}`), p).toEqual(seen.get(`sqlite|${p}`));
  });
});
