/**
 * What the chat draws for a model call without text (renderer/src/chat/plan.ts, issue 18 "every step"):
 * the step it was ("asks for get_weather(city="Tokyo")", from the tool calls right after it), or a model
 * call whose output was not recorded; never an empty "(no text)" bubble. Messages as chat.trace answers them.
 * No browser needed; it lives with the e2e tests because it tests renderer code (as timeline-model.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';

// Renderer code (tsconfig.web.json, bundler resolution) is loaded at run time; vitest transpiles it.
type ChatMessage = Record<string, unknown>;
interface Request { id: string | null; name: string; args: unknown }
interface Planned { requestOnly: boolean; requests: Request[]; unanswered: Request[]; unrecorded: boolean }
let planMessages: (m: ChatMessage[]) => Planned[];
let callSignature: (name: string, args: unknown) => string;
const PLAN = '../../src/renderer/src/chat/plan.ts';
const TOOL_CALLS = '../../src/shared/tool-calls.ts';
beforeAll(async () => {
  ({ planMessages } = (await import(/* @vite-ignore */ PLAN)) as { planMessages: typeof planMessages });
  ({ callSignature } = (await import(/* @vite-ignore */ TOOL_CALLS)) as { callSignature: typeof callSignature });
});

const head = { span_id: 's', agent_name: 'weather', agent_version: null, status_code: 'UNSET', started_at: null, feedback: null, content_refs: [] };
const assistant = (text: string, extra: Record<string, unknown> = {}) => ({ ...head, type: 'assistant_message', assistant_message: {
  text, model: 'gpt-4o', reasoning_content: null, reasoning_tokens: null, input_tokens: 10, output_tokens: 2, input_cost_usd: null, output_cost_usd: null,
  total_cost_usd: null, duration_ms: 5, status: 'UNSET', content_refs: [], error_type: null, error_message: null, error_detail: null, ...extra } }) as ChatMessage;
const tool = (name: string, args: string) => ({ ...head, type: 'tool_call', tool_call: { tool_name: name, tool_arguments: args, tool_result: '"ok"',
  duration_ms: 1, status: 'OK', content_refs: [], error_type: null, error_message: null, error_detail: null } }) as ChatMessage;
const user = (text: string) => ({ ...head, agent_name: 'User', type: 'user_message', user_message: { text, content_refs: [] } }) as ChatMessage;

describe('chat plan: model calls without text', () => {
  it('a call that only asked for tools is "asks for" the calls that follow it, which stay drawn once by their tool lines', () => {
    const p = planMessages([user('Weather in Tokyo and Oslo?'), assistant(''), tool('get_weather', '{"city":"Tokyo"}'), tool('get_weather', '{"city":"Oslo"}'), assistant('Sunny in both.')]);
    expect(p[1]).toMatchObject({ requestOnly: true, unanswered: [], unrecorded: false });
    expect(p[1]!.requests.map((r) => callSignature(r.name, r.args))).toEqual(['get_weather(city="Tokyo")', 'get_weather(city="Oslo")']);
    expect(p[4]).toMatchObject({ requestOnly: false, unrecorded: false });
  });

  it('a call with nothing recorded and no call after it is an unrecorded step; reasoning or a failure is not', () => {
    const p = planMessages([user('hi'), assistant(''), assistant('', { reasoning_content: 'thinking' }), assistant('', { status: 'ERROR', error_message: 'boom' }), assistant('hello')]);
    expect(p.map((x) => x.unrecorded)).toEqual([false, true, false, false, false]);
    expect(p.map((x) => x.requestOnly)).toEqual([false, false, false, false, false]);
  });
});
