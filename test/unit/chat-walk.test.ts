import { describe, expect, it } from 'vitest';
import { buildMessages, MAX_DEPTH } from '../../src/main/domain/chat/walk.js';
import { buildTurn } from '../../src/main/domain/chat/turn.js';
import { pickRoot, turnHeader } from '../../src/main/domain/chat/header.js';
import { ChatMessage, Turn } from '../../src/shared/contract/chat.js';
import { agentTurn, ms, msg, span } from './chat-fixture.js';

const PAYLOAD_KEYS = ['user_message', 'assistant_message', 'tool_call', 'agent_start', 'agent_handoff', 'context_compacted'] as const;
const types = (spans: Parameters<typeof buildMessages>[0]) => buildMessages(spans).map((m) => m.type);

describe('chat walk (semantics §4.3)', () => {
  it('agent turn: user speaks first, then agent_start, tool call, final answer', () => {
    const m = buildMessages(agentTurn({ trace_id: 't'.repeat(32), start: 0 }));
    expect(m.map((x) => x.type)).toEqual(['user_message', 'agent_start', 'assistant_message', 'tool_call', 'assistant_message']);
    expect(m[0]!.user_message!.text).toBe('Where is order A-1187?');
    expect(m[0]!.agent_name).toBe('User');
    expect(m[1]!.agent_start).toEqual({ model: 'gpt-4o', system_instructions: null, tool_definitions: null, status: 'UNSET' });
    expect(m[2]!.assistant_message!.model).toBe('gpt-4o-2024-08-06');
    // The model call that asked for the tool keeps its bubble (model, tokens) without text; the call itself is the tool span's.
    expect(m[2]!.assistant_message!.text).toBe('');
    expect(m[3]!.tool_call).toMatchObject({ tool_name: 'lookup_order', tool_arguments: '{"id":"A-1187"}', tool_result: '{"eta":"tomorrow"}', duration_ms: 100 });
    // The second chat call's input ends with a tool message: no new user message; the agent's mirrored output is not repeated.
    expect(m.filter((x) => x.type === 'user_message')).toHaveLength(1);
    expect(m.filter((x) => x.assistant_message?.text === 'It ships tomorrow.')).toHaveLength(1);
    for (const x of m.slice(1)) expect(x.agent_name).toBe('Support');
  });

  const cases: { name: string; spans: ReturnType<typeof span>[]; expect: string[] }[] = [
    {
      name: 'tool name falls back to the span-name suffix',
      spans: [span({ span_id: '1', span_name: 'execute_tool get_weather', operation_name: 'execute_tool' })],
      expect: ['tool_call'],
    },
    {
      name: 'context_compacted after agent_start when a summary is present',
      spans: [span({ span_id: '1', span_name: 'invoke_agent A', operation_name: 'invoke_agent', agent_name: 'A', compaction_summary: 'earlier: order lookup', compaction_items_before: 12, compaction_items_after: 1 })],
      expect: ['agent_start', 'context_compacted'],
    },
    {
      name: 'compaction by item count alone',
      spans: [span({ span_id: '1', operation_name: 'invoke_agent', compaction_items_before: 3 })],
      expect: ['context_compacted'],
    },
    {
      name: 'no agent_start for a bare invoke_agent span',
      spans: [span({ span_id: '1', span_name: 'invoke_agent', operation_name: 'invoke_agent' })],
      expect: [],
    },
    {
      name: 'a chat span emits user then assistant; a model call with no output recorded is still a step',
      spans: [
        span({ span_id: '1', operation_name: 'chat', input_messages: [msg('user', 'hi')], output_messages: [msg('assistant', 'hello')] }),
        span({ span_id: '2', start_ns: ms(20), operation_name: 'chat', input_messages: [msg('user', 'hi')], output_messages: [] }),
      ],
      expect: ['user_message', 'assistant_message', 'assistant_message'],
    },
    {
      name: 'a repeated user message is not emitted twice; a new one is',
      spans: [
        span({ span_id: '1', operation_name: 'chat', input_messages: [msg('user', 'a')], output_messages: [msg('assistant', 'x')] }),
        span({ span_id: '2', start_ns: ms(20), operation_name: 'chat', input_messages: [msg('user', 'a')], output_messages: [msg('assistant', 'y')] }),
        span({ span_id: '3', start_ns: ms(30), operation_name: 'chat', input_messages: [msg('user', 'a'), msg('assistant', 'y'), msg('user', 'b')], output_messages: [msg('assistant', 'z')] }),
      ],
      expect: ['user_message', 'assistant_message', 'assistant_message', 'user_message', 'assistant_message'],
    },
    {
      name: 'a tool call shown by a tool span is not repeated from the model output; no handoff in a one-agent turn',
      spans: agentTurn({ trace_id: 'h'.repeat(32), start: 0 }),
      expect: ['user_message', 'agent_start', 'assistant_message', 'tool_call', 'assistant_message'],
    },
  ];
  it.each(cases)('$name', (c) => expect(types(c.spans)).toEqual(c.expect));

  it('an agent whose model calls record no output: each call is a step with its figures, then the agent\'s answer (issue 18)', () => {
    const spans = [
      span({ span_id: 'a', span_name: 'invoke_agent Bot', operation_name: 'invoke_agent', agent_name: 'Bot', input_tokens: 999, output_tokens: 999,
        input_messages: [msg('user', 'q')], output_messages: [msg('assistant', 'final answer')], start_ns: ms(0), end_ns: ms(100) }),
      // Model calls that carry usage but whose output is only on the agent span.
      span({ span_id: 'b', parent_span_id: 'a', operation_name: 'chat', input_tokens: 60, output_tokens: 10, reasoning_tokens: 3, total_cost_usd: 0.5, start_ns: ms(1), end_ns: ms(40) }),
      span({ span_id: 'c', parent_span_id: 'a', operation_name: 'chat', input_tokens: 40, output_tokens: 5, total_cost_usd: 0.25, start_ns: ms(50), end_ns: ms(90) }),
    ];
    const m = buildMessages(spans);
    expect(m.map((x) => [x.type, x.span_id])).toEqual([['user_message', 'a'], ['agent_start', 'a'], ['assistant_message', 'b'], ['assistant_message', 'c'], ['assistant_message', 'a']]);
    expect(m[2]!.assistant_message).toMatchObject({ text: '', input_tokens: 60, output_tokens: 10, reasoning_tokens: 3, total_cost_usd: 0.5 });
    expect(m[3]!.assistant_message).toMatchObject({ text: '', input_tokens: 40, output_tokens: 5, total_cost_usd: 0.25 });
    // The answer's figures are on the steps: shown once, not summed again on the answer.
    expect(m[4]!.assistant_message).toMatchObject({ text: 'final answer', input_tokens: null, output_tokens: null, total_cost_usd: null, duration_ms: 100 });
    // With nothing inside, the agent's answer carries its subtree's figures (usage-bearing leaves).
    const alone = buildMessages([spans[0]!, span({ span_id: 't', parent_span_id: 'a', span_name: 'execute_tool x', operation_name: 'execute_tool', input_tokens: 7, output_tokens: 2 })]);
    expect(alone.find((x) => x.type === 'assistant_message')!.assistant_message).toMatchObject({ text: 'final answer', input_tokens: 7, output_tokens: 2 });
    const turn = buildTurn('x', spans);
    expect([turn.total_input_tokens, turn.total_output_tokens, turn.total_cost_usd]).toEqual([100, 15, 0.75]);
  });

  it('sub-agents are labelled with their own name; the parent label resumes after them', () => {
    const spans = [
      span({ span_id: 'a', span_name: 'invoke_agent Planner', operation_name: 'invoke_agent', agent_name: 'Planner', agent_version: '2', start_ns: ms(0), end_ns: ms(100) }),
      span({ span_id: 'b', parent_span_id: 'a', span_name: 'invoke_agent', operation_name: 'invoke_agent', agent_id: 'researcher-7', start_ns: ms(10), end_ns: ms(50) }),
      span({ span_id: 'c', parent_span_id: 'b', operation_name: 'chat', start_ns: ms(11), end_ns: ms(40), input_messages: [msg('user', 'find it')], output_messages: [msg('assistant', 'found')] }),
      span({ span_id: 'd', parent_span_id: 'a', span_name: 'execute_tool x', operation_name: 'execute_tool', start_ns: ms(60), end_ns: ms(70) }),
      span({ span_id: 'e', parent_span_id: 'a', span_name: 'invoke_agent Writer', operation_name: 'invoke_agent', start_ns: ms(80), end_ns: ms(90), output_messages: [msg('assistant', 'done')] }),
    ];
    const m = buildMessages(spans);
    expect(m.map((x) => [x.type, x.agent_name, x.agent_version])).toEqual([
      ['agent_start', 'Planner', '2'],
      // The sub-agent's task is the Planner speaking to it, not the user (issue 10).
      ['agent_handoff', 'Planner', '2'],
      ['agent_start', 'researcher-7', null],
      ['assistant_message', 'researcher-7', null],
      ['tool_call', 'Planner', '2'],
      // An invoke_agent without name or id inherits the label (its own name suffix is the last resort).
      ['assistant_message', 'Planner', '2'],
    ]);
    expect(m[1]!.agent_handoff).toEqual({ from_agent: 'Planner', to_agent: 'researcher-7', text: 'find it' });
  });

  it('a handoff span is the running agent handing over; model-only calls keep the order the model asked for them', () => {
    // The OpenAI Agents SDK shape (test/fixtures/emitters/openai-agents-handoff): the model asks for a tool (run as a
    // span) and for the handoff (no span of its own, only its `transfer_to_…` call); the next agent runs beside the first.
    const call = (id: string, name: string) => ({ type: 'tool_call', id, name, arguments: {} });
    const spans = [
      span({ span_id: 'a1', span_name: 'Agent run: A', operation_name: 'invoke_agent', agent_name: 'agent1', start_ns: ms(0), end_ns: ms(50) }),
      span({
        span_id: 'c1', parent_span_id: 'a1', operation_name: 'chat', start_ns: ms(1), end_ns: ms(5),
        input_messages: [msg('user', 'roll, then hand off')],
        output_messages: [msg('assistant', '', [call('c_r', 'random_number'), call('c_t', 'transfer_to_agent2')])],
      }),
      span({ span_id: 't1', parent_span_id: 'a1', operation_name: 'execute_tool', tool_name: 'random_number', tool_call_result: '4', start_ns: ms(6), end_ns: ms(7) }),
      span({ span_id: 'h1', parent_span_id: 'a1', operation_name: 'handoff', agent_name: 'agent2', start_ns: ms(8), end_ns: ms(9) }),
      span({ span_id: 'a2', span_name: 'Agent run: B', operation_name: 'invoke_agent', agent_name: 'agent2', start_ns: ms(60), end_ns: ms(90) }),
      span({
        span_id: 'c2', parent_span_id: 'a2', operation_name: 'chat', start_ns: ms(61), end_ns: ms(80),
        input_messages: [msg('user', 'roll, then hand off'), msg('tool', '{"assistant": "agent2"}', [{ type: 'tool_call_response', id: 'c_t', response: { assistant: 'agent2' } }])],
        output_messages: [msg('assistant', 'It was 4.')],
      }),
    ];
    const m = buildMessages(spans);
    expect(m.map((x) => [x.type, x.agent_name, x.tool_call?.tool_name ?? x.agent_handoff?.to_agent ?? null])).toEqual([
      ['user_message', 'User', null],
      ['agent_start', 'agent1', null],
      ['assistant_message', 'agent1', null],
      ['tool_call', 'agent1', 'random_number'],
      ['tool_call', 'agent1', 'transfer_to_agent2'],
      ['agent_handoff', 'agent1', 'agent2'],
      ['agent_start', 'agent2', null],
      ['assistant_message', 'agent2', null],
    ]);
    expect(m[5]!.agent_handoff).toEqual({ from_agent: 'agent1', to_agent: 'agent2', text: null });
    expect(m[4]!.tool_call!.tool_result).toBe('{"assistant":"agent2"}');
  });

  it('the span-name suffix labels a nameless top-level agent', () => {
    const m = buildMessages([span({ span_id: 'a', span_name: 'invoke_agent Writer', operation_name: 'invoke_agent', output_messages: [msg('assistant', 'ok')] })]);
    expect(m.map((x) => [x.type, x.agent_name])).toEqual([['assistant_message', 'Writer']]);
  });

  it('a wrapper span repeating its inner call output emits it once', () => {
    const m = buildMessages([
      span({ span_id: 'a', span_name: 'ai.generateText', input_messages: [msg('user', 'q')], output_messages: [msg('assistant', 'same')], start_ns: ms(0), end_ns: ms(100) }),
      span({ span_id: 'b', parent_span_id: 'a', span_name: 'ai.generateText.doGenerate', operation_name: 'chat', input_messages: [msg('user', 'q')], output_messages: [msg('assistant', 'same')], start_ns: ms(1), end_ns: ms(90) }),
    ]);
    expect(m.map((x) => [x.type, x.span_id])).toEqual([['user_message', 'a'], ['assistant_message', 'b']]);
  });

  it('every message has all keys and exactly one payload, the one named by type', () => {
    const spans = [
      ...agentTurn({ trace_id: 'k'.repeat(32), start: 0 }),
      span({ span_id: 'z', trace_id: 'k'.repeat(32), parent_span_id: 'k'.repeat(4) + '000000000001', operation_name: 'invoke_agent', compaction_summary: 's', start_ns: ms(3000) }),
    ];
    const m = buildMessages(spans);
    expect(new Set(m.map((x) => x.type))).toEqual(new Set(['user_message', 'agent_start', 'assistant_message', 'tool_call', 'context_compacted']));
    for (const x of m) {
      expect(Object.keys(x).sort()).toEqual(Object.keys(ChatMessage.shape).sort());
      for (const k of PAYLOAD_KEYS) expect(x[k] === null).toBe(k !== x.type);
      expect(ChatMessage.strict().safeParse(x).success).toBe(true);
    }
    expect(Turn.safeParse(buildTurn('k'.repeat(32), spans)).success).toBe(true);
  });

  it('siblings are ordered by start, then longer first, then span_id; deep trees stop at the depth limit', () => {
    const siblings = [
      span({ span_id: 'p', operation_name: 'invoke_agent', agent_name: 'P', start_ns: ms(0), end_ns: ms(100) }),
      span({ span_id: 's2', parent_span_id: 'p', span_name: 'execute_tool short', operation_name: 'execute_tool', start_ns: ms(5), end_ns: ms(6) }),
      span({ span_id: 's1', parent_span_id: 'p', span_name: 'execute_tool long', operation_name: 'execute_tool', start_ns: ms(5), end_ns: ms(9) }),
      span({ span_id: 's0', parent_span_id: 'p', span_name: 'execute_tool early', operation_name: 'execute_tool', start_ns: ms(1), end_ns: ms(2) }),
      span({ span_id: 's3', parent_span_id: 'p', span_name: 'execute_tool tie', operation_name: 'execute_tool', start_ns: ms(5), end_ns: ms(6) }),
    ];
    expect(buildMessages(siblings).slice(1).map((m) => m.tool_call!.tool_name)).toEqual(['early', 'long', 'short', 'tie']);

    const chain = Array.from({ length: MAX_DEPTH + 50 }, (_, i) =>
      span({ span_id: `d${i}`, parent_span_id: i ? `d${i - 1}` : null, span_name: `execute_tool t${i}`, operation_name: 'execute_tool', start_ns: ms(i) }));
    expect(buildMessages(chain)).toHaveLength(MAX_DEPTH);
  });

  it('parent cycles do not lose spans', () => {
    const m = buildMessages([
      span({ span_id: 'x', parent_span_id: 'y', span_name: 'execute_tool a', operation_name: 'execute_tool', start_ns: ms(0) }),
      span({ span_id: 'y', parent_span_id: 'x', span_name: 'execute_tool b', operation_name: 'execute_tool', start_ns: ms(1) }),
    ]);
    expect(m.map((x) => x.tool_call!.tool_name).sort()).toEqual(['a', 'b']);
  });

  it('root: the unique parentless span, else the latest-ended (tie: larger span_id)', () => {
    const a = span({ span_id: 'a', end_ns: ms(10) });
    const b = span({ span_id: 'b', parent_span_id: 'a', end_ns: ms(50) });
    expect(pickRoot([a, b])!.span_id).toBe('a');
    const c = span({ span_id: 'c', end_ns: ms(50) });
    expect(pickRoot([a, b, c])!.span_id).toBe('c'); // two parentless: latest end wins, tie → larger id
    expect(pickRoot([])).toBeNull();
  });

  const headers: { name: string; spans: ReturnType<typeof span>[]; want: Partial<ReturnType<typeof turnHeader>> }[] = [
    {
      name: 'duration is the root wall clock, not a sum of children',
      spans: [span({ span_id: 'r', start_ns: ms(0), end_ns: ms(1500) }), span({ span_id: 'c1', parent_span_id: 'r', start_ns: ms(0), end_ns: ms(1400) }), span({ span_id: 'c2', parent_span_id: 'r', start_ns: ms(0), end_ns: ms(1400) })],
      want: { root_span_id: 'r', total_duration_ms: 1500 },
    },
    { name: 'end before start floors at 0', spans: [span({ span_id: 'r', start_ns: ms(10), end_ns: ms(5) })], want: { total_duration_ms: 0 } },
    { name: 'open root → null duration', spans: [span({ span_id: 'r', end_ns: null })], want: { total_duration_ms: null, end_ns: null } },
    {
      name: 'svc_user_id: first non-null in start order; root name = agent name else span name',
      spans: [span({ span_id: 'r', span_name: 'workflow', start_ns: ms(0) }), span({ span_id: 'b', parent_span_id: 'r', start_ns: ms(9), svc_user_id: 'late' }), span({ span_id: 'a', parent_span_id: 'r', start_ns: ms(3), svc_user_id: 'early' })],
      want: { svc_user_id: 'early', root_span_name: 'workflow', agent_name: null },
    },
    { name: 'no cost anywhere → null, tokens 0', spans: [span({ span_id: 'r' })], want: { total_cost_usd: null, total_input_tokens: 0, total_cache_read_input_tokens: 0 } },
    {
      name: 'root fields: status, provider, version',
      spans: [span({ span_id: 'r', agent_name: 'A', agent_version: 'v3', provider_name: 'openai', status_code: 'ERROR', cache_read_input_tokens: 7, input_tokens: 10 })],
      want: { root_span_name: 'A', agent_version: 'v3', provider: 'openai', status_code: 'ERROR', total_cache_read_input_tokens: 7, total_input_tokens: 10 },
    },
  ];
  it.each(headers)('turn header: $name', (c) => expect(turnHeader(c.spans)).toMatchObject(c.want));
});
