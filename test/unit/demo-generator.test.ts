/**
 * The demo generator promises realistic multi-agent conversations: several agents and priced
 * models, tool calls with arguments and results, reasoning, one error turn, one compaction,
 * sub-agents, feedback, a long conversation — emitted as OTLP JSON and stored through the importer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateDemo } from '../../src/main/demo/generate.js';
import { loadDemo } from '../../src/main/demo/load.js';
import { openStores, type Stores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';

type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string; status: { code?: number }; attributes: { key: string; value: Record<string, unknown> }[] };
const NOW = Date.parse('2026-11-22T12:00:00Z');
const demo = generateDemo({ seed: 7, now: NOW });
const spans: Span[] = demo.requests.flatMap((r: any) => r.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
const attr = (s: Span, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue ?? v.arrayValue)));
};
const op = (s: Span) => attr(s, 'gen_ai.operation.name');

describe('generateDemo output', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    expect(JSON.stringify(generateDemo({ seed: 7, now: NOW }))).toBe(JSON.stringify(demo));
    expect(JSON.stringify(generateDemo({ seed: 8, now: NOW }).requests)).not.toBe(JSON.stringify(demo.requests));
    expect(spans.length).toBe(demo.spans);
  });

  it('has several agents, and OpenAI and Anthropic models that genai-prices knows', () => {
    const agents = new Set(spans.filter((s) => op(s) === 'invoke_agent').map((s) => attr(s, 'gen_ai.agent.name')));
    expect(agents.size).toBeGreaterThanOrEqual(3);
    const chats = spans.filter((s) => op(s) === 'chat');
    const models = new Map(chats.map((s) => [attr(s, 'gen_ai.request.model') as string, attr(s, 'gen_ai.provider.name') as string]));
    expect(new Set(models.values())).toEqual(new Set(['openai', 'anthropic']));
    for (const [model, provider] of models) expect(calcPrice({ input_tokens: 1000, output_tokens: 100 }, model, { providerId: provider }), model).toBeTruthy();
    for (const s of chats.filter((c) => c.status.code !== 2)) {
      expect(attr(s, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
      expect(attr(s, 'gen_ai.conversation.id')).toBeTruthy();
    }
  });

  it('has tool calls with arguments and results, tied by call id to the model output', () => {
    const tools = spans.filter((s) => op(s) === 'execute_tool');
    expect(tools.length).toBeGreaterThan(10);
    const ok = tools.filter((s) => s.status.code !== 2);
    for (const t of ok) {
      expect(JSON.parse(attr(t, 'gen_ai.tool.call.arguments') as string)).toBeTypeOf('object');
      expect(attr(t, 'gen_ai.tool.call.result')).toBeDefined();
    }
    const lookup = tools.find((t) => attr(t, 'gen_ai.tool.name') === 'lookup_order' && (attr(t, 'gen_ai.tool.call.arguments') as string).includes('A-1187'))!;
    const callId = attr(lookup, 'gen_ai.tool.call.id');
    const chat = spans.find((s) => op(s) === 'chat' && String(attr(s, 'gen_ai.output.messages')).includes(String(callId)))!;
    const parts = JSON.parse(attr(chat, 'gen_ai.output.messages') as string)[0].parts;
    expect(parts).toContainEqual({ type: 'tool_call', id: callId, name: 'lookup_order', arguments: { order_id: 'A-1187' } });
  });

  it('has reasoning content, one error turn, one compaction and sub-agents', () => {
    const reasoning = spans.filter((s) => attr(s, 'svc.reasoning_content'));
    expect(reasoning.length).toBeGreaterThan(0);
    expect(JSON.parse(attr(reasoning[0]!, 'gen_ai.output.messages') as string)[0].parts[0].type).toBe('reasoning');

    const failedRoots = spans.filter((s) => !s.parentSpanId && s.status.code === 2);
    expect(failedRoots).toHaveLength(1);
    expect(attr(failedRoots[0]!, 'error.type')).toBe('anthropic.APIStatusError');

    const compacted = spans.filter((s) => attr(s, 'svc.compaction.summary'));
    expect(compacted).toHaveLength(1);
    expect(op(compacted[0]!)).toBe('invoke_agent');
    expect(attr(compacted[0]!, 'svc.compaction.items_before')).toBe(24);
    expect(attr(compacted[0]!, 'svc.compaction.items_after')).toBe(3);

    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const subAgents = spans.filter((s) => op(s) === 'invoke_agent' && s.parentSpanId && op(byId.get(s.parentSpanId)!) === 'invoke_agent');
    expect(new Set(subAgents.map((s) => attr(s, 'gen_ai.agent.name')))).toEqual(new Set(['billing', 'researcher']));
  });

  it('has a conversation of at least 6 turns, and thumbs, notes and ratings as feedback', () => {
    const turns = new Map<string, Set<string>>();
    for (const s of spans.filter((x) => !x.parentSpanId)) {
      const c = attr(s, 'gen_ai.conversation.id') as string;
      (turns.get(c) ?? turns.set(c, new Set()).get(c)!).add(s.traceId);
    }
    expect(Math.max(...[...turns.values()].map((t) => t.size))).toBeGreaterThanOrEqual(6);
    expect(turns.size).toBe(demo.conversations);
    const types = new Set(demo.feedback.map((f) => f.feedback_type));
    expect(types).toEqual(new Set(['thumbs', 'note', 'rating']));
    const traceIds = new Set(spans.map((s) => s.traceId));
    for (const f of demo.feedback.filter((x) => x.target_kind === 'trace')) expect(traceIds.has(f.target_id)).toBe(true);
  });
});

describe('custom attributes (the app\'s own, outside the GenAI conventions)', () => {
  const chats = spans.filter((s) => op(s) === 'chat');
  const tools = spans.filter((s) => op(s) === 'execute_tool');
  const roots = spans.filter((s) => !s.parentSpanId);

  it('app.retry_count (int) on every chat span: mostly 0, some retries, 3 on a failed call', () => {
    const counts = chats.map((s) => s.attributes.find((a) => a.key === 'app.retry_count')?.value);
    expect(counts.every((v) => v !== undefined && typeof v.intValue === 'string')).toBe(true);
    const values = chats.map((s) => attr(s, 'app.retry_count') as number);
    expect(new Set(values).size).toBeGreaterThanOrEqual(3);
    expect(values.filter((v) => v === 0).length).toBeGreaterThan(values.length / 2);
    for (const s of chats.filter((c) => c.status.code === 2)) expect(attr(s, 'app.retry_count')).toBe(3);
  });

  it('app.customer_tier (string) on chat and root spans: one tier per user, several tiers overall', () => {
    const tierOf = new Map<string, string>();
    const userOfConv = new Map(roots.map((r) => [attr(r, 'gen_ai.conversation.id') as string, attr(r, 'svc.user_id') as string]));
    for (const s of [...roots, ...chats]) {
      const tier = attr(s, 'app.customer_tier') as string;
      expect(['free', 'pro', 'enterprise']).toContain(tier);
      const user = userOfConv.get(attr(s, 'gen_ai.conversation.id') as string)!;
      expect(tierOf.get(user) ?? tier, user).toBe(tier);
      tierOf.set(user, tier);
    }
    expect(new Set(tierOf.values()).size).toBeGreaterThanOrEqual(2);
  });

  it('app.cache_hit (bool) on every tool span: both values present, never a hit on a failed call', () => {
    const hits = tools.map((s) => attr(s, 'app.cache_hit'));
    expect(hits.every((h) => typeof h === 'boolean')).toBe(true);
    expect(new Set(hits)).toEqual(new Set([true, false]));
    for (const s of tools.filter((t) => t.status.code === 2)) expect(attr(s, 'app.cache_hit')).toBe(false);
  });
});

describe('loadDemo into a real store', () => {
  let dir: string;
  let store: Stores;
  let ctx: ServiceContext;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-demo-'));
    store = await openStores(dir);
    ctx = { traces: store.traces, app: store.app, events: new EventBus(), dataDir: dir, apiKey: 'k' };
  });
  afterEach(() => store.close());

  it('stores every span through the importer, idempotently, and the chat view reads the long conversation back', async () => {
    const first = await loadDemo(store, { seed: 7, now: NOW });
    expect(first).toMatchObject({ project_id: 'local/demo', spans: demo.spans, traces: demo.traces, feedback: demo.feedback.length });
    const again = await loadDemo(store, { seed: 7, now: NOW });
    expect(again.feedback).toBe(0);
    expect(await store.traces.projects()).toEqual([expect.objectContaining({ project_id: 'local/demo', span_count: demo.spans })]);

    const view = (await dispatch('chat.conversation', { project_id: 'local/demo', conversation_id: 'conv-order-a1187', include_feedback: true }, ctx, { trusted: true })) as {
      total_turns: number; turns: { messages: { type: string; user_message: { text: string } | null; tool_call: { tool_name: string | null } | null }[] }[]; feedback: unknown[] | null;
    };
    expect(view.total_turns).toBe(7);
    const messages = view.turns.flatMap((t) => t.messages);
    expect(messages.find((m) => m.type === 'user_message')?.user_message?.text).toBe('Where is order A-1187?');
    expect(messages.some((m) => m.type === 'tool_call' && m.tool_call?.tool_name === 'lookup_order')).toBe(true);
    expect(messages.some((m) => m.type === 'context_compacted')).toBe(true);
    // The conversation's rating and note (not the turns' thumbs) come back with include_feedback.
    expect((view.feedback as { feedback_type: string }[] | null)?.map((f) => f.feedback_type).sort()).toEqual(['note', 'rating']);
  });

  it('distributions over the demo spans see its custom attributes (one retry count per chat span, one cache flag per tool span)', async () => {
    await loadDemo(store, { seed: 7, now: NOW });
    const r = (await dispatch('spans.query', {
      project_id: 'local/demo',
      limit: 1000,
      group_by: [{ source: 'field', key: 'operation_name', alias: 'op' }],
      measures: [{ alias: 'n', aggregation: 'count' }],
      group_distributions: [
        { alias: 'retries', value: { source: 'custom_attrs_int', key: 'app.retry_count' } },
        { alias: 'tier', value: { source: 'custom_attrs_string', key: 'app.customer_tier' } },
        { alias: 'cache', value: { source: 'custom_attrs_bool', key: 'app.cache_hit' } },
      ],
    }, ctx, { trusted: true })) as { groups: { group_keys: { op: string | null }; span_count: number; distributions: Record<string, { present_count: number }> }[] };
    const byOp = new Map(r.groups.map((g) => [g.group_keys.op, g]));
    const chatN = spans.filter((s) => op(s) === 'chat').length;
    const toolN = spans.filter((s) => op(s) === 'execute_tool').length;
    const rootN = spans.filter((s) => !s.parentSpanId).length;
    expect(byOp.get('chat')!.span_count).toBe(chatN);
    expect(byOp.get('chat')!.distributions.retries!.present_count).toBe(chatN);
    expect(byOp.get('chat')!.distributions.tier!.present_count).toBe(chatN);
    expect(byOp.get('execute_tool')!.distributions.cache!.present_count).toBe(toolN);
    expect(byOp.get('execute_tool')!.distributions.retries!.present_count).toBe(0);
    expect(byOp.get('invoke_agent')!.distributions.tier!.present_count).toBe(rootN);
  });
});
