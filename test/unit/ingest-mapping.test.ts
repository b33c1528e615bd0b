import { describe, expect, it } from 'vitest';
import { calcPrice } from '@pydantic/genai-prices';
import { MAPPING, isMappedKey, pick, pickAll } from '../../src/main/service/ingest/mapping.js';
import { MAX_CUSTOM_KEYS, MAX_STRING_BYTES, TRUNCATION_MARKER } from '../../src/main/service/ingest/custom.js';
import { computeCosts } from '../../src/main/service/ingest/costs.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { normalizedSpan, type Attrs } from '../helpers/otlp.js';

const norm = normalizedSpan;

describe('the dialect mapping table', () => {
  it('first source present wins, and pickAll agrees with pick for every column', () => {
    const attrs = { 'gen_ai.usage.prompt_tokens': 5, 'gen_ai.usage.input_tokens': 7, 'llm.token_count.prompt': 9, 'gen_ai.system': 'Vertex_AI', 'ai.model.provider': 'anthropic.messages' };
    expect(pick(attrs, 'input_tokens')).toBe(7);
    expect(pick(attrs, 'provider_name')).toBe('gcp.vertex_ai');
    const all = pickAll(attrs);
    for (const col of Object.keys(MAPPING) as (keyof typeof MAPPING)[]) expect(all[col] ?? null, col).toEqual(pick(attrs, col));
    expect(pickAll({ 'ai.model.provider': 'anthropic.messages' }).provider_name).toBe('anthropic');
  });

  it('operation name: normalized, from OpenInference / traceloop / Vercel kinds, else the span-name prefix', () => {
    expect(norm('x', { 'gen_ai.operation.name': 'chat.completions' }).operation_name).toBe('chat');
    expect(norm('x', { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup_order' })).toMatchObject({ operation_name: 'execute_tool', tool_name: 'lookup_order' });
    expect(norm('x', { 'openinference.span.kind': 'RETRIEVER' }).operation_name).toBe('retrieval');
    expect(norm('x', { 'traceloop.span.kind': 'agent' }).operation_name).toBe('invoke_agent');
    expect(norm('x', { 'ai.operationId': 'ai.streamText.doStream' }).operation_name).toBe('chat');
    expect(norm('invoke_agent Planner', {})).toMatchObject({ operation_name: 'invoke_agent', agent_name: 'Planner' });
    expect(norm('execute_tool get_weather', {})).toMatchObject({ operation_name: 'execute_tool', tool_name: 'get_weather' });
    expect(norm('GET /health', {}).operation_name).toBeNull();
  });

  it("Semantic Kernel's 2024 keys: usage under gen_ai.response.*, one finish reason, operation chat.completions", () => {
    // As the SK docs' console print-out shows them (test/fixtures/emitters/semantic-kernel-console).
    const s = norm('chat.completions gpt-4o', {
      'gen_ai.operation.name': 'chat.completions', 'gen_ai.response.prompt_tokens': 16, 'gen_ai.response.completion_tokens': 29,
      'gen_ai.response.finish_reason': 'FinishReason.STOP',
    });
    expect(s).toMatchObject({ operation_name: 'chat', input_tokens: 16, output_tokens: 29, finish_reasons: ['FinishReason.STOP'] });
    expect(s.custom_attrs_int).toEqual({});
  });

  it('provider renames of gen_ai.system', () => {
    const p = (v: string) => norm('x', { 'gen_ai.system': v }).provider_name;
    expect([p('az.ai.openai'), p('vertex_ai'), p('gemini'), p('xai'), p('OpenAI')]).toEqual(['azure.ai.openai', 'gcp.vertex_ai', 'gcp.gemini', 'x_ai', 'openai']);
    expect(norm('x', { 'gen_ai.provider.name': 'aws.bedrock', 'gen_ai.system': 'openai' }).provider_name).toBe('aws.bedrock');
  });

  it('tokens, cache tokens (old and new keys), request parameters, svc.* keys, finish reasons', () => {
    const s = norm('chat m', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_write.input_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 4,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.response.finish_reasons': 'stop,length',
      'svc.user_id': 'u-1',
      'svc.run_id': 'run-9',
      'svc.run_step': 3,
      'svc.compaction.summary': 'earlier turns summarized',
      'svc.compaction.items_before': 40,
      'svc.compaction.items_after': 5,
      'svc.reasoning_content': 'thinking...',
      'svc.content_refs': ['file://a.txt'],
      'gen_ai.conversation.id': 'c-1',
    });
    expect(s).toMatchObject({
      input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 30, cache_read_input_tokens: 10, reasoning_tokens: 4,
      request_temperature: 0.3, request_stop_sequences: ['END'], finish_reasons: ['stop', 'length'], svc_user_id: 'u-1',
      svc_run_id: 'run-9', svc_run_step: 3, compaction_summary: 'earlier turns summarized', compaction_items_before: 40,
      compaction_items_after: 5, reasoning_content: 'thinking...', content_refs: ['file://a.txt'], conversation_id: 'c-1',
    });
    expect(norm('x', { 'gen_ai.usage.cache_creation.input_tokens': 8 }).cache_creation_input_tokens).toBe(8);
    expect(norm('x', { 'session.id': 's-1' }).conversation_id).toBe('s-1');
  });

  it('custom attributes by type, limits, dropped credentials', () => {
    const big = 'x'.repeat(MAX_STRING_BYTES + 10);
    const s = norm('x', {
      'app.flag': true, 'app.count': 3, 'app.ratio': 0.25, 'app.name': 'shop', 'app.tags': ['a', 'b'], 'app.big': big,
      'app.huge_int': 9007199254740993n, 'ai.request.headers.authorization': 'Bearer sk-secret', 'gen_ai.request.model': 'gpt-4o-mini',
    });
    expect(s.custom_attrs_bool).toEqual({ 'app.flag': true });
    expect(s.custom_attrs_int).toEqual({ 'app.count': 3, 'app.huge_int': 9007199254740993n });
    expect(s.custom_attrs_float).toEqual({ 'app.ratio': 0.25 });
    expect(s.custom_attrs_string['app.name']).toBe('shop');
    expect(s.custom_attrs_string['app.tags']).toBe('["a","b"]');
    expect(s.custom_attrs_string['app.big']!.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(Buffer.byteLength(s.custom_attrs_string['app.big']!)).toBeLessThanOrEqual(MAX_STRING_BYTES);
    expect(JSON.stringify(s.custom_attrs_string) + s.raw_span_dump).not.toContain('sk-secret');
    expect(s.raw_span_dump).toContain('app.flag');
    expect(s.custom_attrs_string).not.toHaveProperty('gen_ai.request.model'); // mapped keys are not custom
    expect(norm('x', { 'app.nan': Number.NaN }).custom_attrs_float).toEqual({});

    const many: Attrs = {};
    for (let i = 0; i < MAX_CUSTOM_KEYS + 50; i++) many[`k${i}`] = i;
    expect(Object.keys(norm('x', many).custom_attrs_int)).toHaveLength(MAX_CUSTOM_KEYS);
    expect(isMappedKey('gen_ai.prompt.3.content')).toBe(true);
    expect(isMappedKey('app.anything')).toBe(false);
  });

  it('costs: carried cost wins; computed like genai-prices; unknown model → null, never 0', () => {
    const carried = norm('x', { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 10, 'gen_ai.usage.cost': 0.5 });
    expect(carried.total_cost_usd).toBe(0.5);
    const unknown = norm('x', { 'gen_ai.request.model': 'my-local-llama', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 10 });
    expect([unknown.total_cost_usd, unknown.input_cost_usd, unknown.output_cost_usd]).toEqual([null, null, null]);
    expect(norm('x', { 'gen_ai.request.model': 'gpt-4o-mini' }).total_cost_usd).toBeNull(); // no usage, no cost

    for (const [model, provider, input, output, read, write] of [
      ['gpt-4o-mini', 'openai', 412, 27, 256, 0],
      ['claude-sonnet-4-5', 'anthropic', 1000, 200, 300, 100],
      ['claude-sonnet-4-5', 'anthropic', 250_000, 200, 0, 0], // a higher price tier
    ] as const) {
      const lib = calcPrice({ input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_write_tokens: write }, model, { providerId: provider })!;
      const c = computeCosts({ input_tokens: input, output_tokens: output, cache_read_input_tokens: read, cache_creation_input_tokens: write }, model, null, provider);
      expect(c.input_cost_usd).toBeCloseTo(lib.input_price, 10);
      expect(c.output_cost_usd).toBeCloseTo(lib.output_price, 10);
      expect(c.total_cost_usd).toBeCloseTo(lib.total_price, 10);
    }
  });
});

describe('messages of every dialect', () => {
  const user = (s: SpanRecord) => s.input_messages.find((m) => m.role === 'user')?.content;
  const call = (s: SpanRecord) => s.output_messages.flatMap((m) => m.parts).find((p) => p.type === 'tool_call');

  it('deprecated OTel span events: gen_ai.content.prompt/completion and gen_ai.user.message/gen_ai.choice', () => {
    const a = norm('chat', {}, {
      events: [
        { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'hi there' }]) } },
        { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': JSON.stringify([{ role: 'assistant', content: 'hello' }]) } },
      ],
    });
    expect(user(a)).toBe('hi there');
    expect(a.output_messages[0]!.content).toBe('hello');
    const b = norm('chat', {}, {
      events: [
        { name: 'gen_ai.system.message', attributes: { content: 'be brief' } },
        { name: 'gen_ai.user.message', attributes: { content: 'what time is it?' } },
        {
          name: 'gen_ai.choice',
          attributes: { finish_reason: 'tool_calls', message: JSON.stringify({ role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'clock', arguments: '{"tz":"UTC"}' } }] }) },
        },
      ],
    });
    expect(user(b)).toBe('what time is it?');
    expect(b.system_instructions).toEqual(['be brief']);
    expect(call(b)).toMatchObject({ name: 'clock', id: 'c1', arguments: { tz: 'UTC' } });
    expect(b.output_messages[0]!.finish_reason).toBe('tool_calls');
    expect(b.finish_reasons).toEqual(['tool_calls']);
  });

  it('OpenAI-style content and tool results, Anthropic blocks, Vercel content arrays, reasoning parts', () => {
    const s = norm('chat', {
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: { q: 'x' } }] },
        { role: 'tool', tool_call_id: 't1', content: '{"hits":1}' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't2', toolName: 'open', args: { url: 'u' } }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'hmm' }, { type: 'text', content: 'done' }], finish_reason: 'stop' }]),
    });
    expect(s.input_messages.map((m) => m.parts[0]!.type)).toEqual(['text', 'tool_call', 'tool_call_response', 'tool_call']);
    expect(s.input_messages[2]!.parts[0]).toMatchObject({ id: 't1', response: { hits: 1 } });
    expect(s.input_messages[3]!.parts[0]).toMatchObject({ id: 't2', name: 'open', arguments: { url: 'u' } });
    expect(s.output_messages[0]).toMatchObject({ role: 'assistant', content: 'done', finish_reason: 'stop' });
    expect(s.reasoning_content).toBe('hmm');
    expect(s.finish_reasons).toEqual(['stop']);
  });

  it('AnyValue message trees (arrayValue of kvlists) and system instructions as parts', () => {
    const s = norm('chat', {
      'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'tree form' }] }],
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are terse.' }]),
    });
    expect(user(s)).toBe('tree form');
    expect(s.system_instructions).toEqual(['You are terse.']);
  });

  it('OpenInference TOOL spans take arguments and result from input.value / output.value', () => {
    const s = norm('lookup', { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup_order', 'input.value': '{"order_id":"A-1"}', 'output.value': 'shipped' });
    expect(s).toMatchObject({ tool_name: 'lookup_order', tool_call_arguments: '{"order_id":"A-1"}', tool_call_result: 'shipped' });
  });
});
