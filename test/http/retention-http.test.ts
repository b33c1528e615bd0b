/**
 * Export, delete and retention over HTTP (POST /export, /app/spans/delete, GET /app/storage) on a
 * real server, run against both stores (vitest project `clickhouse`): deleting by trace ids, by age
 * and by project leaves the lists (conversations, agents, projects) exactly as if the deleted traces
 * had never been imported, an exported conversation re-imports to the same rows, and a size cap of 0
 * empties the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, spanCount, startTestServer } from './server-harness.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/retention';
const Q = 'acme/keep';
let app: RunningLoupe;

/** One turn of a conversation: an agent root and a chat child with tokens (3 spans with a tool). */
function turn(seed: string, conversation: string, at: string, agent: string) {
  const t = traceBuilder({ seed, start: at });
  const root = t.span(`invoke_agent ${agent}`, { durationMs: 2000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, 'gen_ai.conversation.id': conversation } });
  t.span('chat gpt-4o-mini', {
    parent: root, at: 10, durationMs: 800,
    attributes: chatAttributes({ model: 'gpt-4o-mini', conversationId: conversation, inputTokens: 100, outputTokens: 10, input: [{ role: 'user', content: `question of ${seed}` }], output: [{ role: 'assistant', content: `answer of ${seed}` }] }),
  });
  t.span('execute_tool lookup', { parent: root, at: 900, durationMs: 50, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } });
  return t;
}

const OLD = '2026-01-05T10:00:00.000Z';
const NEW = '2026-11-20T10:00:00.000Z';
const turns = {
  a1: turn('ret-a1', 'conv-a', OLD, 'Planner'),
  a2: turn('ret-a2', 'conv-a', NEW, 'Planner'),
  b1: turn('ret-b1', 'conv-b', OLD, 'Researcher'),
  c1: turn('ret-c1', 'conv-c', NEW, 'Planner'),
};

async function send(project: string, t: ReturnType<typeof traceBuilder>) {
  const r = await fetch(`${app.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': project }, body: JSON.stringify(t.request()) });
  expect(r.status).toBe(200);
}

const conversations = async (project: string) => {
  const r = await postJson(app.url, '/app/conversations', { project_id: project, limit: 50 });
  expect(r.status).toBe(200);
  return (r.body.conversations as { conversation_id: string; turn_count: number }[]).map((c) => [c.conversation_id, c.turn_count]).sort();
};
const agents = async (project: string) => {
  const r = await postJson(app.url, '/agents/query', { project_id: project });
  expect(r.status).toBe(200);
  return (r.body.agents as { agent_name: string; invocation_count: number; span_count: number }[]).map((a) => [a.agent_name, a.invocation_count]).sort();
};
async function exportJsonl(body: unknown): Promise<string> {
  const r = await fetch(`${app.url}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return r.text();
}

beforeAll(async () => {
  app = await startTestServer();
  for (const t of Object.values(turns)) await send(P, t);
  await send(Q, turn('ret-q1', 'conv-q', OLD, 'Keeper'));
}, 120_000);
afterAll(async () => app?.close());

describe('export, delete and retention over HTTP', () => {
  it('stores what was sent: three conversations, two agents, 12 spans; storage lists both projects', async () => {
    expect(await conversations(P)).toEqual([['conv-a', 2], ['conv-b', 1], ['conv-c', 1]]);
    expect(await agents(P)).toEqual([['Planner', 3], ['Researcher', 1]]);
    expect(await spanCount(app.url, P)).toBe(12);
    const storage = (await (await fetch(`${app.url}/app/storage`)).json()) as { total_bytes: number; projects: { project_id: string; span_count: number }[] };
    expect(storage.total_bytes).toBeGreaterThan(0);
    expect(storage.projects.map((p) => [p.project_id, p.span_count]).sort()).toEqual([[Q, 3], [P, 12]]);
  });

  it('deletes traces by id: the conversation loses that turn, the agent that trace', async () => {
    const r = await postJson(app.url, '/app/spans/delete', { project_id: P, trace_ids: [turns.a1.traceId] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deleted_spans: 3, deleted_traces: 1, projects: [P] });
    expect(await conversations(P)).toEqual([['conv-a', 1], ['conv-b', 1], ['conv-c', 1]]);
    expect(await agents(P)).toEqual([['Planner', 2], ['Researcher', 1]]);
    expect(await exportJsonl({ project_id: P, trace_ids: [turns.a1.traceId] })).toBe('');
  });

  it('exports a conversation as OTLP JSON Lines that re-import to the same rows', async () => {
    const text = await exportJsonl({ project_id: P, conversation_ids: ['conv-c'] });
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    const spans = (JSON.parse(lines[0]!) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[] }).resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.map((s) => s.name).sort()).toEqual(['chat gpt-4o-mini', 'execute_tool lookup', 'invoke_agent Planner']);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([turns.c1.traceId]));
    const again = await postJson(app.url, '/import', { content: text, project_id: 'acme/copy' });
    expect(again.status).toBe(200);
    expect(await conversations('acme/copy')).toEqual([['conv-c', 1]]);
    expect(await agents('acme/copy')).toEqual([['Planner', 1]]);
  });

  it('deletes traces older than an instant in one project only', async () => {
    const r = await postJson(app.url, '/app/spans/delete', { project_id: P, older_than: '2026-06-01T00:00:00Z' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deleted_spans: 3, deleted_traces: 1, projects: [P] });
    expect(await conversations(P)).toEqual([['conv-a', 1], ['conv-c', 1]]);
    expect(await agents(P)).toEqual([['Planner', 2]]);
    // The other project's old trace is untouched.
    expect(await spanCount(app.url, Q)).toBe(3);
  });

  it('deletes a whole project; the others stay', async () => {
    const r = await postJson(app.url, '/app/spans/delete', { project_id: P });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deleted_spans: 6, deleted_traces: 2, projects: [P] });
    expect(await conversations(P)).toEqual([]);
    expect(await agents(P)).toEqual([]);
    const projects = (await postJson(app.url, '/app/projects', {})).body.projects as { project_id: string }[];
    expect(projects.map((p) => p.project_id).sort()).toEqual(['acme/copy', Q]);
  });

  it('a size cap of 0 bytes deletes every trace of every project', async () => {
    const r = await postJson(app.url, '/app/spans/delete', { max_bytes: 0 });
    expect(r.status).toBe(200);
    expect(r.body.deleted_traces).toBe(2);
    expect(r.body.projects.sort()).toEqual(['acme/copy', Q]);
    expect((await postJson(app.url, '/app/projects', {})).body.projects).toEqual([]);
  });

  it('answers 422 for a selection that names nothing', async () => {
    const r = await postJson(app.url, '/app/spans/delete', {});
    expect(r.status).toBe(422);
  });
});
