/**
 * Replay (issue 21) against a scripted OpenAI-compatible server started here (a real HTTP server):
 * what is sent (recorded messages, tools, settings), tool calls answered from the recording, a
 * divergence where the model asks for what was never recorded, the replay stored as a linked trace
 * with the original untouched; the report's totals on 50 conversations with known outcomes; budget,
 * cancel, resume after a restart, and the key kept out of the replay's state.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/main/demo/load.js';
import { postJson, startTestServer, tempDir } from './server-harness.js';
import { startScriptedOpenAi, type ScriptedServer } from '../helpers/scripted-openai.js';
import { CONVS, KINDS, PROJECT, calcScript, getJson, storeCalc, waitFor } from '../helpers/calc-replay.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('replay against a scripted OpenAI-compatible server', () => {
  let server: Server;
  let model: ScriptedServer;

  beforeAll(async () => {
    model = await startScriptedOpenAi(calcScript);
    server = await startTestServer();
    await storeCalc(server);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  it('sends the recorded messages, tools and settings, answers tool calls from the recording and stores a linked trace; the original is untouched', async () => {
    const c = CONVS[0]!;
    const before = await postJson(server.url, '/agents/traces/chat', { project_id: PROJECT, trace_id: c.trace });
    const from = model.requests.length;
    const { status, body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [c.trace], target: { base_url: model.url, model: 'new-model', api_key: 'sk-scripted' } });
    expect(status).toBe(200);
    expect(body.estimate).toMatchObject({ turns: 1, model_calls: 2, input_tokens: 130, output_tokens: 22 });
    const done = await waitFor(server.url, body.replay_id);
    expect(done.status).toBe('done');
    expect(done.items[0]).toMatchObject({ original_trace_id: c.trace, status: 'done', diverged: false, input_tokens: 200, output_tokens: 40 });

    const sent = model.requests.slice(from);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ model: 'new-model', temperature: 0.3, max_tokens: 256 });
    expect(sent[0]!.messages).toEqual([{ role: 'system', content: 'You add numbers.' }, { role: 'user', content: `case:same What is ${c.a}+${c.b}?` }]);
    expect(sent[0]!.tools!.map((t) => t.function.name)).toEqual(['add']);
    // The second call carries the recorded result of the tool call the new model made.
    const toolMsg = sent[1]!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMsg.content!)).toEqual({ sum: c.a + c.b });
    expect(model.authorizations.slice(from)).toEqual(['Bearer sk-scripted', 'Bearer sk-scripted']);

    // The replay is a trace of its own in the same conversation, linked by attributes; the original unchanged.
    const replayTrace = done.items[0].replay_trace_id as string;
    expect(replayTrace).not.toBe(c.trace);
    const chat = await postJson(server.url, '/agents/traces/chat', { project_id: PROJECT, trace_id: replayTrace });
    expect(chat.status).toBe(200);
    expect(JSON.stringify(chat.body)).toContain(`The answer is ${c.a + c.b}.`);
    const turns = await postJson(server.url, '/agents/conversations/chat', { project_id: PROJECT, conversation_id: c.conv });
    expect(JSON.stringify(turns.body)).toContain(replayTrace);
    const after = await postJson(server.url, '/agents/traces/chat', { project_id: PROJECT, trace_id: c.trace });
    expect(after.body).toEqual(before.body);

    // The key went to the secrets file for the run and is gone after it; never in the replay's state.
    const stateText = fs.readFileSync(path.join(server.dataDir, 'replays', `${body.replay_id}.json`), 'utf8');
    expect(stateText).not.toContain('sk-scripted');
    expect(fs.readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8')).not.toContain('sk-scripted');
  }, 60_000);

  it('marks a divergence when the model asks for an unseen tool or arguments, and stops there', async () => {
    const tool = CONVS[KINDS.indexOf('unseentool')]!;
    const args = CONVS[KINDS.indexOf('unseenargs')]!;
    const { body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, conversation_ids: [tool.conv, args.conv], target: { base_url: model.url, model: 'new-model' } });
    const done = await waitFor(server.url, body.replay_id);
    expect(done.items.map((i: any) => i.divergence)).toEqual([
      { kind: 'unseen_tool', tool: 'multiply', arguments: JSON.stringify({ a: tool.a, b: tool.b }), call_index: 0, handled: 'stopped' },
      { kind: 'unseen_arguments', tool: 'add', arguments: JSON.stringify({ a: args.a, b: args.b + 1 }), call_index: 0, handled: 'stopped' },
    ]);
    expect(done.totals).toMatchObject({ items: 2, done: 2, diverged: 2 });
  }, 60_000);

  it('answers a divergence with the user command when asked to, and a normaliser matches what exact matching does not', async () => {
    const c = CONVS[KINDS.indexOf('unseentool')]!;
    const cmd = { command: [process.execPath, '-e', 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);const a=JSON.parse(c.arguments);console.log(JSON.stringify({sum:a.a+a.b,via:c.name}))})'] };
    const { status, body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [c.trace], target: { base_url: model.url, model: 'new-model' }, on_divergence: cmd }, { authorization: `Bearer ${server.ctx.apiKey}` });
    expect(status).toBe(200);
    const done = await waitFor(server.url, body.replay_id);
    expect(done.items[0]).toMatchObject({ status: 'done', diverged: true, divergence: { kind: 'unseen_tool', handled: 'command' } });
    const last = model.requests[model.requests.length - 1]!;
    expect(JSON.parse(last.messages.find((m) => m.role === 'tool')!.content!)).toEqual({ sum: c.a + c.b, via: 'multiply' });

    // A command runs a program: over HTTP it needs the key.
    const refused = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [c.trace], target: { base_url: model.url, model: 'new-model' }, on_divergence: cmd });
    expect(refused.status).toBe(401);

    const n = CONVS[KINDS.indexOf('unseenargs')]!;
    const norm = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [n.trace], target: { base_url: model.url, model: 'new-model' }, overrides: { normalizers: { add: { ignore_keys: ['b'] } } } });
    const ndone = await waitFor(server.url, norm.body.replay_id);
    expect(ndone.items[0]).toMatchObject({ status: 'done', diverged: false });
  }, 60_000);

  it('reports totals right on 50 conversations with known outcomes, sortable', async () => {
    const expected = Object.fromEntries(CONVS.map((c) => [c.conv, `\\b${c.a + c.b}\\b`]));
    const { body } = await postJson(server.url, '/app/replays', {
      project_id: PROJECT, conversation_ids: CONVS.map((c) => c.conv), target: { base_url: model.url, model: 'new-model' },
      budget: { concurrency: 4 }, check: { name: 'correct', expected, match: 'regex' }, label: '50 known',
    });
    expect(body.estimate).toMatchObject({ turns: 50, model_calls: 100, input_tokens: 50 * 130, output_tokens: 50 * 22 });
    const done = await waitFor(server.url, body.replay_id);
    expect(done.totals).toMatchObject({ items: 50, done: 45, failed: 5, diverged: 10, pending: 0 });
    const report = await getJson(server.url, `/app/replays/${body.replay_id}/report`);
    expect(report.status).toBe(200);
    expect(report.body.totals).toEqual({ better: 10, worse: 10, same: 10, changed: 5, diverged: 10, failed: 5, pending: 0 });
    const rows = report.body.rows as any[];
    for (const r of rows) expect(r.outcome.replace('diverged', 'unseen')).toContain(r.outcome === 'diverged' ? 'unseen' : KINDS[CONVS.findIndex((c) => c.trace === r.original_trace_id)] === 'same' ? 'same' : r.outcome);
    // Sorted by outcome: worse first, same and pending last; each row links the pair.
    expect(rows[0].outcome).toBe('worse');
    const worse = rows[0];
    expect(worse.answer_diff).toEqual([['-', `The answer is ${Number(/\d+/.exec(worse.original_answer)![0])}.`], ['+', worse.replay_answer]]);
    expect(worse.scores.correct).toEqual({ original: 1, replay: 0 });
    // 10 pairs up, 10 down: the sign test sees no effect.
    expect(report.body.score_totals).toEqual([expect.objectContaining({ name: 'correct', up: 10, down: 10, z: 0, p: 1 })]);
    expect(worse.tool_diff).toEqual([[' ', 'add']]);
    const diverged = rows.find((r) => r.outcome === 'diverged' && r.divergence.kind === 'unseen_tool');
    expect(diverged.tool_diff).toEqual([['-', 'add'], ['+', 'multiply']]);
    const byTokens = await getJson(server.url, `/app/replays/${body.replay_id}/report?sort=tokens_delta`);
    const deltas = (byTokens.body.rows as any[]).map((r) => r.replay_tokens - r.original_tokens);
    expect(deltas).toEqual([...deltas].sort((x, y) => y - x));
    const list = await getJson(server.url, `/app/replays?project_id=${encodeURIComponent(PROJECT)}`);
    expect(list.body.replays.map((r: any) => r.label)).toContain('50 known');
  }, 120_000);

  it('refuses a selection that is not there, naming the field', async () => {
    const r = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [CONVS[0]!.trace, 'f'.repeat(32)], target: { base_url: model.url, model: 'm' } });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain('trace_ids');
    const both = await postJson(server.url, '/app/replays', { project_id: PROJECT, target: { base_url: model.url, model: 'm' } });
    expect(both.status).toBe(422);
    const cost = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [CONVS[0]!.trace], target: { base_url: model.url, model: 'no-such-model-xyz' }, budget: { max_cost_usd: 1 } });
    expect(cost.status).toBe(422);
    expect(JSON.stringify(cost.body)).toContain('max_cost_usd');
    expect((await getJson(server.url, '/app/replays/nope')).status).toBe(404);
  });
});

describe('replay bounds: budget, cancel, resume after a restart', () => {
  let model: ScriptedServer;
  let delayMs = 0;

  beforeAll(async () => {
    model = await startScriptedOpenAi(async (req) => {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      return calcScript(req);
    });
  });
  afterAll(async () => model?.close());
  const sameTraces = CONVS.filter((_, i) => KINDS[i] === 'same').map((c) => c.trace);

  it('stops at the token budget without crossing it', async () => {
    delayMs = 0;
    const server = await startTestServer();
    try {
      await storeCalc(server);
      const { body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: sameTraces, target: { base_url: model.url, model: 'm' }, budget: { max_tokens: 1500, concurrency: 2 } });
      const done = await waitFor(server.url, body.replay_id);
      expect(done.status).toBe('done');
      expect(done.reason).toMatch(/^stopped early: token budget/);
      expect(done.totals.input_tokens + done.totals.output_tokens).toBeLessThanOrEqual(1500);
      expect(done.totals.done).toBeGreaterThan(0);
      expect(done.items.filter((i: any) => i.status === 'skipped').length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('cancels: calls stop, turns not started are cancelled', async () => {
    delayMs = 150;
    const server = await startTestServer();
    try {
      await storeCalc(server);
      const { body } = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: sameTraces, target: { base_url: model.url, model: 'm' }, budget: { concurrency: 1 } });
      await waitFor(server.url, body.replay_id, (r) => r.totals.done >= 1);
      const { body: cancelled } = await postJson(server.url, `/app/replays/${body.replay_id}/cancel`, {});
      expect(cancelled.status).toBe('cancelled');
      const sent = model.requests.length;
      await new Promise((r) => setTimeout(r, 600));
      expect(model.requests.length).toBe(sent);
      expect(cancelled.items.some((i: any) => i.status === 'running')).toBe(false);
      expect(cancelled.items.filter((i: any) => i.status === 'cancelled').length).toBeGreaterThan(0);
      expect(cancelled.totals.done).toBeLessThan(10);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('resumes after the server stops mid-replay, each turn stored once', async () => {
    delayMs = 100;
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await storeCalc(first);
    const store = first.ctx.traces.adapter === 'sqlite' ? undefined : (first.ctx.traces as { location?: string }).location;
    const { body } = await postJson(first.url, '/app/replays', { project_id: PROJECT, trace_ids: sameTraces.slice(0, 5), target: { base_url: model.url, model: 'm', api_key: 'sk-resume' }, budget: { concurrency: 1 } });
    await waitFor(first.url, body.replay_id, (r) => r.totals.done >= 1);
    await first.close();
    const mid = JSON.parse(fs.readFileSync(path.join(dataDir, 'replays', `${body.replay_id}.json`), 'utf8'));
    expect(mid.status).toBe('running');
    const second = await startTestServer({ dataDir, ...(store ? { store } : {}) });
    try {
      const done = await waitFor(second.url, body.replay_id);
      expect(done.status).toBe('done');
      expect(done.totals).toMatchObject({ items: 5, done: 5 });
      expect(new Set(done.items.map((i: any) => i.replay_trace_id)).size).toBe(5);
      expect(model.authorizations.at(-1)).toBe('Bearer sk-resume');
    } finally {
      await second.close();
    }
  }, 90_000);
});

describe('replay of a demo conversation', () => {
  it('sends the recorded turn and answers the recorded tool call', async () => {
    const server = await startTestServer();
    let recorded: { name: string; args: unknown } | null = null;
    const model = await startScriptedOpenAi((req) => {
      const last = req.messages[req.messages.length - 1]!;
      if (last.role !== 'tool' && recorded) return { tool: recorded.name, args: recorded.args };
      return { text: 'done' };
    });
    try {
      await loadDemo({ traces: server.ctx.traces, app: server.ctx.app }, { projectId: 'local/demo' });
      const ids = await server.ctx.traces.exportTraceIds({ project_id: 'local/demo' });
      // A demo turn whose first model call asks for a tool.
      let pick: { trace: string; userText: string; result: string; tools: string[] } | null = null;
      for (const id of ids) {
        const spans = await server.ctx.traces.traceSpans('local/demo', id);
        const chat = spans.filter((s) => s.operation_name === 'chat').sort((a, b) => (a.start_ns! < b.start_ns! ? -1 : 1));
        const call = chat[0]?.output_messages[0]?.parts.find((p) => p.type === 'tool_call');
        const tool = call && spans.find((s) => s.tool_call_id === call.id && s.tool_call_result);
        if (call && tool && chat[0]!.status_code !== 'ERROR') {
          recorded = { name: String(call.name), args: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments };
          const users = chat[0]!.input_messages.filter((m) => m.role === 'user');
          const defs = JSON.parse(chat[0]!.tool_definitions ?? '[]') as { name: string }[];
          pick = { trace: id, userText: users[users.length - 1]!.parts.find((p) => p.type === 'text')!.content as string, result: tool.tool_call_result!, tools: defs.map((d) => d.name) };
          break;
        }
      }
      expect(pick).not.toBeNull();
      const { body } = await postJson(server.url, '/app/replays', { project_id: 'local/demo', trace_ids: [pick!.trace], target: { base_url: model.url, model: 'new' } });
      const done = await waitFor(server.url, body.replay_id);
      expect(done.items[0]).toMatchObject({ status: 'done', diverged: false });
      expect(model.requests[0]!.messages.some((m) => m.role === 'user' && m.content === pick!.userText)).toBe(true);
      expect(model.requests[0]!.tools!.map((t) => t.function.name)).toEqual(pick!.tools);
      expect(model.requests[1]!.messages[model.requests[1]!.messages.length - 1]).toMatchObject({ role: 'tool', content: pick!.result });
    } finally {
      await server.close();
      await model.close();
    }
  }, 90_000);
});

describe('replay on a Loupe checkpoint', () => {
  it('sends the turn to a checkpoint of the training API in this process and stores the replay', async () => {
    const server = await startTestServer();
    try {
      await storeCalc(server);
      const auth = { authorization: `Bearer ${server.ctx.apiKey}` };
      const model = await postJson(server.url, '/v1/preview/models', { project: 'replay', name: 'base', base_model: 'loupe-tiny-bytes' }, auth);
      expect(model.status).toBe(200);
      const missing = await postJson(server.url, '/app/replays', { project_id: PROJECT, trace_ids: [CONVS[0]!.trace], target: { model_id: model.body.id, step: 7 } });
      expect(missing.status).toBe(422);
      // The built-in model's context is small: the turn goes without tools and system prompt, with a short answer.
      const { status, body } = await postJson(server.url, '/app/replays', {
        project_id: PROJECT, trace_ids: [CONVS[0]!.trace], target: { model_id: model.body.id }, overrides: { tools: [], system_prompt: '', max_tokens: 8 },
      });
      expect(status).toBe(200);
      expect(body.estimate.cost_usd).toBe(0);
      const done = await waitFor(server.url, body.replay_id);
      expect(done.target).toMatchObject({ kind: 'checkpoint', model_id: model.body.id, step: 0, model: 'local/replay/base:step0' });
      expect(done.items[0]).toMatchObject({ status: 'done', diverged: false, cost_usd: 0 });
      expect(done.items[0].input_tokens).toBeGreaterThan(0);
      const spans = await server.ctx.traces.traceSpans(PROJECT, done.items[0].replay_trace_id);
      const chat = spans.find((s) => s.operation_name === 'chat')!;
      expect(chat.request_model).toBe('local/replay/base:step0');
      expect(chat.input_messages.map((m) => m.role)).toEqual(['user']);
    } finally {
      await server.close();
    }
  }, 120_000);
});
