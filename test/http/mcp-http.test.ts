/**
 * The MCP server over Streamable HTTP at /mcp, driven by the SDK's own Client (issue 17): every
 * protocol revision and no handshake, tools/list, every tool on the demo data and on a 20,000-span
 * trace within its stated budget, cursors to the last span, bad arguments, the key for writes and
 * training, and the Host/Origin guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { rawRequest, startTestServer, tempDir, testStoreOption, type RawResponse } from './server-harness.js';
import { BIG_PROJECT, BIG_SPANS, BIG_TRACE, REVISIONS, call, httpClient, prepareMcpData, statedBudget } from '../helpers/mcp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const TOOL_NAMES = [
  'search_conversations', 'get_conversation', 'get_trace', 'get_span', 'query_spans', 'list_agents', 'compare', 'recent_errors', 'list_clusters', 'query_scores',
  'list_projects', 'add_feedback', 'list_models', 'list_checkpoints', 'list_training_jobs', 'get_training_job',
];

let server: RunningLoupe;
let budgets: Map<string, number>;

beforeAll(async () => {
  const dataDir = tempDir('loupe-mcp-');
  const store = await testStoreOption();
  await prepareMcpData(dataDir, { store });
  server = await startTestServer({ dataDir, store });
  const c = await httpClient(server.url, '2025-11-25');
  budgets = new Map((await c.listTools()).tools.map((t) => [t.name, statedBudget(t.description)]));
  await c.close();
}, 180_000);
afterAll(async () => server?.close());

/** Calls a tool and checks its answer against the budget its description states. */
async function within(c: Client, name: string, args: Record<string, unknown> = {}) {
  const a = await call(c, name, args);
  expect(a.bytes, `${name} ${JSON.stringify(args)}: ${a.bytes} bytes`).toBeLessThanOrEqual(budgets.get(name)!);
  return a;
}

const post = (body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(server.port, {
    method: 'POST',
    path: '/mcp',
    headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

/** The JSON-RPC message of an answer sent as JSON or as one server-sent event. */
const message = (r: RawResponse): any => {
  const text = r.body.toString('utf8');
  const data = text.trimStart().startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
  return JSON.parse(data);
};

describe('MCP over HTTP: protocol revisions', () => {
  it.each(REVISIONS)('%s: connects, lists every tool with its schemas and budget, and calls one', async (rev) => {
    const c = await httpClient(server.url, rev);
    try {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
      for (const t of tools) {
        expect(t.outputSchema, t.name).toBeTruthy();
        expect(t.inputSchema.type).toBe('object');
        expect(statedBudget(t.description)).toBeGreaterThan(0);
      }
      const a = await within(c, 'search_conversations', { query: 'refund' });
      expect(a.isError).toBe(false);
      expect(a.structured.conversations.map((r: { id: string }) => r.id)).toContain('conv-order-a1187');
    } finally {
      await c.close();
    }
  });

  it('an initialize asking for an unknown revision is answered with a revision the server speaks', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
    expect(r.status).toBe(200);
    expect(['2025-11-25', '2025-06-18']).toContain(message(r).result.protocolVersion);
  });

  it('a stateless request on an unknown revision is refused naming the revisions supported', async () => {
    const r = await post(
      {
        jsonrpc: '2.0', id: 2, method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(r.status).toBe(400);
    const err = message(r).error;
    expect(JSON.stringify(err.data)).toContain('2026-07-28');
  });

  it('a stateless tools/call needs no handshake before it', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const r = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_projects', arguments: {}, _meta: meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_projects' },
    );
    expect(r.status).toBe(200);
    expect(message(r).result.structuredContent.projects.map((p: { project: string }) => p.project)).toContain('local/demo');
  });
});

describe('MCP over HTTP: tools on the demo data', () => {
  let c: Client;
  beforeAll(async () => (c = await httpClient(server.url, '2026-07-28')));
  afterAll(async () => c?.close());

  it('every read tool answers within its budget, from the same operations as the pages', async () => {
    const found = await within(c, 'search_conversations', { query: 'refund', project: 'local/demo' });
    expect(found.structured.conversations[0].id).toBe('conv-order-a1187');
    const page1 = await within(c, 'search_conversations', { project: 'local/demo', limit: 5 });
    expect(page1.structured.conversations).toHaveLength(5);
    const page2 = await within(c, 'search_conversations', { project: 'local/demo', limit: 5, cursor: page1.structured.next_cursor });
    expect(page2.structured.conversations[0].id).not.toBe(page1.structured.conversations[0].id);
    // The cursor walks the whole list once: every row, none twice, as many as the list counts.
    const seen: string[] = [];
    for (let cursor: string | undefined, i = 0; i < 20; i++) {
      const page = await within(c, 'search_conversations', { project: 'local/demo', limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.structured.conversations.map((r: { kind: string; id: string }) => `${r.kind}:${r.id}`));
      cursor = page.structured.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(page1.structured.total_count);
    const failing = await within(c, 'search_conversations', { project: 'local/demo', has_error: true });
    expect(failing.structured.conversations.every((r: { errors: number }) => r.errors > 0)).toBe(true);

    const conv = await within(c, 'get_conversation', { conversation_id: 'conv-order-a1187', limit: 20 });
    const steps = conv.structured.turns.flatMap((t: { steps: unknown[] }) => t.steps);
    const refund = steps.find((s: { tool: string | null }) => s.tool === 'issue_refund');
    expect(refund.error).toEqual({ type: 'PermissionDenied', message: 'refunds above $200 need supervisor approval' });
    expect(steps.some((s: { speaker: string }) => s.speaker === 'billing')).toBe(true);
    expect(conv.text).toContain('ERROR PermissionDenied');

    const traceId = conv.structured.turns.find((t: { steps: { tool: string | null }[] }) => t.steps.some((s) => s.tool === 'issue_refund')).trace_id;
    const tree = await within(c, 'get_trace', { trace_id: traceId, errors_first: true });
    expect(tree.structured.spans[0]).toMatchObject({ status: 'ERROR', tool: 'issue_refund' });
    expect(tree.structured.error_count).toBe(1);
    const top = await within(c, 'get_trace', { trace_id: traceId, depth: 0 });
    expect(top.structured.spans.every((s: { depth: number }) => s.depth === 0)).toBe(true);

    const span = await within(c, 'get_span', { trace_id: traceId, span_id: refund.span_id });
    expect(span.structured.span).toMatchObject({ status: 'ERROR', error_type: 'PermissionDenied', tool: 'issue_refund' });
    const raw = span.structured.items.find((i: { field: string }) => i.field === 'raw_span');
    expect(raw.text).toContain('[cut:');
    const rest = await within(c, 'get_span', { trace_id: traceId, span_id: refund.span_id, field: 'raw_span', offset: 300 });
    expect(rest.structured.read.offset).toBe(300);
    expect(rest.structured.read.next_offset).toBeNull();
    expect(raw.text.slice(0, 300) + rest.structured.read.text).toBe(JSON.stringify(JSON.parse(raw.text.slice(0, 300) + rest.structured.read.text)));

    const groups = await within(c, 'query_spans', { project: 'local/demo', group_by: ['agent_name'] });
    expect(groups.structured.mode).toBe('groups');
    const agents = await within(c, 'list_agents', { project: 'local/demo' });
    // The same totals from both reads (the Agents page and the group-by).
    for (const a of agents.structured.agents) {
      const g = groups.structured.groups.find((x: { keys: { agent_name: string } }) => x.keys.agent_name === a.agent);
      expect(g.span_count, a.agent).toBe(a.spans);
    }
    const windowed = await within(c, 'list_agents', { project: 'local/demo', since: '2000-01-01T00:00:00Z' });
    expect(windowed.structured.source).toBe('spans_group_by');
    const errors = await within(c, 'query_spans', { project: 'local/demo', filter: { $expr: { $eq: [{ $getField: 'status_code' }, { $literal: 'ERROR' }] } } });
    expect(errors.structured.spans.length).toBe(errors.structured.total_count);

    const recent = await within(c, 'recent_errors', { project: 'local/demo' });
    const group = recent.structured.groups.find((g: { tool: string | null }) => g.tool === 'issue_refund');
    expect(group).toMatchObject({ error_type: 'PermissionDenied', count: 1 });
    expect(group.examples[0].span_id).toBe(refund.span_id);

    const other = conv.structured.turns[0].trace_id;
    const cmp = await within(c, 'compare', { a: other, b: traceId });
    expect(cmp.structured.pairs_total).toBeGreaterThan(0);
    expect(cmp.structured.b.failed_steps).toBe(1);
    expect(cmp.structured.delta.input_tokens).toBe(cmp.structured.b.input_tokens - cmp.structured.a.input_tokens);

    const projects = await within(c, 'list_projects');
    expect(projects.structured.projects.map((p: { project: string }) => p.project).sort()).toEqual([BIG_PROJECT, 'local/demo'].sort());
  });

  it('bad arguments are tool errors naming the argument and what it takes', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['search_conversations', { limit: 500 }, /limit.*50/],
      ['get_trace', { trace_id: BIG_TRACE, project: BIG_PROJECT, cursor: 'garbage' }, /argument "cursor"/],
      ['get_conversation', { conversation_id: 'no-such-conversation' }, /not found/],
      ['get_conversation', { conversation_id: 'conv-order-a1187', turn_from: 99 }, /argument "turn_from".*0–/],
      ['query_spans', { project: 'local/demo', filter: { $expr: { $bogus: 1 } } }, /argument "filter\.\$expr\.\$bogus".*allowed: \$and/],
      ['query_spans', { project: 'local/demo', group_by: ['no_such_field'] }, /argument "group_by\.0/],
      ['list_agents', { project: 'no/such' }, /argument "project".*local\/demo/],
      ['add_feedback', { target: 'planet', id: 'x' }, /target.*conversation/],
      ['recent_errors', { since: 'yesterday' }, /since/],
    ];
    for (const [name, args, re] of cases) {
      const a = await call(c, name, args);
      expect(a.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(a.text, name).toMatch(re);
    }
    // A span id of another trace: the field list names what may be read.
    const first = await call(c, 'get_trace', { trace_id: BIG_TRACE, project: BIG_PROJECT, limit: 1 });
    const bad = await call(c, 'get_span', { trace_id: BIG_TRACE, span_id: first.structured.spans[0].span_id, field: 'nope' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/argument "field".*its fields: .*raw_span/);
  });

  it('resources: the conversation and trace templates read as the tools do; prompts are listed', async () => {
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['loupe://conversation/{id}', 'loupe://trace/{id}']);
    const conv = await c.readResource({ uri: 'loupe://conversation/conv-order-a1187' });
    expect((conv.contents[0] as { text: string }).text).toContain('Where is order A-1187?');
    const trace = await c.readResource({ uri: `loupe://trace/${BIG_TRACE}` });
    expect((trace.contents[0] as { text: string }).text).toContain(`${BIG_SPANS.toLocaleString('en-US')} spans`);
    await expect(c.readResource({ uri: 'loupe://trace/ffffffffffffffffffffffffffffffff' })).rejects.toThrow(/not found/i);
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.title)).toEqual(['Debug this conversation', 'Why did this tool fail']);
    const p = await c.getPrompt({ name: 'debug_conversation', arguments: { conversation_id: 'conv-order-a1187' } });
    expect((p.messages[0]!.content as { text: string }).text).toContain('get_conversation {"conversation_id": "conv-order-a1187"}');
  });
});

describe('MCP over HTTP: a 20,000-span trace', () => {
  let c: Client;
  beforeAll(async () => (c = await httpClient(server.url, '2025-11-25')));
  afterAll(async () => c?.close());

  it('get_trace walks every span to the last one with cursors, each page within budget', async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    const t0 = performance.now();
    for (;;) {
      const a = await within(c, 'get_trace', { trace_id: BIG_TRACE, limit: 500, ...(cursor ? { cursor } : {}) });
      pages++;
      expect(a.structured.span_count).toBe(BIG_SPANS);
      for (const s of a.structured.spans) seen.add(s.span_id);
      cursor = a.structured.next_cursor ?? undefined;
      if (!cursor) {
        expect(a.text).toContain('(end of the trace)');
        break;
      }
      expect(pages).toBeLessThan(1000);
    }
    expect(seen.size).toBe(BIG_SPANS);
    const failed = await within(c, 'get_trace', { trace_id: BIG_TRACE, errors_first: true, limit: 3 });
    const errorsFirst = failed.structured.spans.filter((s: { status: string }) => s.status === 'ERROR').length;
    expect(errorsFirst).toBe(1);
    console.log(`[mcp] get_trace walked ${BIG_SPANS} spans in ${pages} pages, ${Math.round(performance.now() - t0)} ms`);
  }, 240_000);

  it('the chat of the big trace reads in bounded pieces; get_span and compare stay within budget', async () => {
    const first = await within(c, 'get_conversation', { conversation_id: BIG_TRACE });
    expect(first.structured.kind).toBe('trace');
    expect(first.structured.cut || first.structured.next !== null).toBe(true);
    const next = await within(c, 'get_conversation', { conversation_id: BIG_TRACE, ...first.structured.next });
    expect(next.structured.turns[0].steps[0].step).toBe(first.structured.next.step_from);
    const tree = await within(c, 'get_trace', { trace_id: BIG_TRACE, errors_first: true, limit: 1 });
    await within(c, 'get_span', { trace_id: BIG_TRACE, span_id: tree.structured.spans[0].span_id });
    await within(c, 'compare', { a: BIG_TRACE, b: BIG_TRACE, project: BIG_PROJECT });
    await within(c, 'query_spans', { project: BIG_PROJECT, limit: 200 });
    await within(c, 'search_conversations', { project: BIG_PROJECT });
  }, 120_000);
});

describe('MCP over HTTP: the key and the guard', () => {
  it('a write without the key is refused saying why; with the key it is stored', async () => {
    const anon = await httpClient(server.url, '2026-07-28');
    const refused = await call(anon, 'add_feedback', { target: 'conversation', id: 'conv-order-a1187', thumbs: 'down' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/API key.*Authorization: Bearer/);
    const training = await call(anon, 'list_models');
    expect(training.isError).toBe(true);
    expect(training.text).toMatch(/needs Loupe's API key/);
    await anon.close();

    const keyed = await httpClient(server.url, '2025-06-18', { authorization: `Bearer ${server.ctx.apiKey}` });
    const ok = await call(keyed, 'add_feedback', { target: 'conversation', id: 'conv-order-a1187', thumbs: 'down', note: 'refund refused' });
    expect(ok.isError).toBe(false);
    expect(ok.structured.feedback).toMatchObject({ feedback_type: 'thumbs', creator: 'loupe-mcp', payload: { value: 'down', note: 'refund refused' } });
    const stored = await server.ctx.app.feedback.forTargets('local/demo', 'conversation', ['conv-order-a1187']);
    expect(stored.get('conv-order-a1187')!.some((f) => f.id === ok.structured.feedback.id)).toBe(true);
    const models = await call(keyed, 'list_models');
    expect(models.isError).toBe(false);
    await keyed.close();
  });

  it('a foreign Host or Origin gets 403 before any MCP handling', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    expect((await post(init, { host: 'evil.example' })).status).toBe(403);
    expect((await post(init, { host: 'evil.example:4318' })).status).toBe(403);
    expect((await post(init, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(init, { origin: `http://localhost:${server.port + 1}` })).status).toBe(403);
    expect((await post(init, { origin: `http://localhost:${server.port}` })).status).toBe(200);
  });
});
