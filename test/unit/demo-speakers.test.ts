/**
 * The demo's multi-agent conversation read turn by turn (issue 10): each turn starts with the
 * customer's own message; a task the triage agent gives a sub-agent is the triage agent speaking to
 * it (agent_handoff), never the user; every answer, tool call and error is attributed to the agent
 * that produced it. Expectations come from the demo script itself (src/main/demo/conversations.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/main/demo/load.js';
import { STORY_CONVERSATIONS } from '../../src/main/demo/conversations.js';
import type { Step } from '../../src/main/demo/script.js';
import { call, tempContext } from './chat-fixture.js';

const ctx = await tempContext();
afterAll(() => ctx.stores.close());
const { project_id } = await loadDemo(ctx, { now: Date.parse('2026-11-22T12:00:00Z'), fillers: 0 });
const story = STORY_CONVERSATIONS.find((c) => c.id === 'conv-order-a1187')!;

type Msg = { type: string; agent_name: string | null; [k: string]: any };
let turns: { messages: Msg[] }[] = [];

/** What the script says each agent does in a turn, in order: handoffs, tool calls (with errors), answers. */
function expected(agent: string, steps: Step[]): [string, string, string | null][] {
  const out: [string, string, string | null][] = [];
  for (const s of steps) {
    if (s.kind === 'delegate') {
      out.push(['agent_handoff', agent, s.task]);
      out.push(...expected(s.agent, s.steps));
      continue;
    }
    for (const t of s.tools ?? []) out.push(['tool_call', agent, t.name]);
    if (s.text) out.push(['assistant_message', agent, s.text]);
  }
  return out;
}

describe('demo conversation conv-order-a1187, turn by turn', () => {
  it('loads all turns oldest first', async () => {
    const r = (await call('chat.conversation', { project_id, conversation_id: story.id, limit: 50 }, ctx)) as { turns: { messages: Msg[] }[]; total_turns: number };
    expect(r.total_turns).toBe(story.turns.length);
    turns = r.turns;
    expect(turns).toHaveLength(story.turns.length);
  });

  it.each(story.turns.map((t, i) => ({ i, turn: t })))('turn $i: "$turn.user"', ({ i, turn }) => {
    const m = turns[i]!.messages;
    const dump = JSON.stringify(m.map((x) => [x.type, x.agent_name]), null, 0);
    // The customer speaks first, once, with their own words.
    const users = m.filter((x) => x.type === 'user_message');
    expect(users.map((u) => u.user_message.text), dump).toEqual([turn.user]);
    expect(m[0]!.type, dump).toBe('user_message');
    expect(users[0]!.agent_name).toBe('User');
    // No sub-agent task is ever drawn as the user.
    for (const x of m) if (x.type === 'user_message') expect(x.user_message.text).toBe(turn.user);

    // Handoffs, tool calls and answers in script order, each by the agent that produced it.
    const shown = m
      .filter((x) => x.type === 'agent_handoff' || x.type === 'tool_call' || (x.type === 'assistant_message' && x.assistant_message.text))
      .map((x): [string, string | null, string | null] => [
        x.type, x.agent_name,
        x.type === 'agent_handoff' ? x.agent_handoff.text : x.type === 'tool_call' ? x.tool_call.tool_name : x.assistant_message.text,
      ]);
    expect(shown, dump).toEqual(expected(story.agent, turn.steps));
    for (const h of m.filter((x) => x.type === 'agent_handoff')) {
      expect(h.agent_handoff.from_agent).toBe(h.agent_name);
      expect(m[m.indexOf(h) + 1]).toMatchObject({ type: 'agent_start', agent_name: h.agent_handoff.to_agent });
    }
    // A failed tool carries its error in its bubble.
    for (const s of turn.steps.flatMap(function flat(x: Step): Step[] { return x.kind === 'delegate' ? [x, ...x.steps.flatMap(flat)] : [x]; })) {
      for (const t of s.kind === 'model' ? s.tools ?? [] : []) {
        const bubble = m.find((x) => x.type === 'tool_call' && x.tool_call.tool_name === t.name)!;
        expect(bubble.tool_call, t.name).toMatchObject(t.error ? { status: 'ERROR', error_type: t.error.type, error_message: t.error.message } : { error_message: null });
      }
    }
    // The last word of the turn is the front agent's answer.
    const last = m.filter((x) => x.type === 'assistant_message' && x.assistant_message.text).at(-1)!;
    expect([last.agent_name, last.assistant_message.text]).toEqual([story.agent, turn.answer]);
  });
});

describe('demo conversation with a failed model call', () => {
  it('the error of the failed call is in its bubble', async () => {
    const r = (await call('chat.conversation', { project_id, conversation_id: 'conv-invoice-timeout', limit: 50 }, ctx)) as { turns: { messages: Msg[] }[] };
    const first = r.turns[0]!.messages;
    const failed = first.find((x) => x.type === 'assistant_message' && x.status_code === 'ERROR')!;
    expect(failed.assistant_message).toMatchObject({ text: '', error_type: 'anthropic.APIStatusError', error_message: 'overloaded_error: Overloaded' });
    const tool = first.find((x) => x.type === 'tool_call')!;
    expect(tool.tool_call).toMatchObject({ tool_name: 'get_invoice', status: 'ERROR', error_type: 'TimeoutError', error_message: 'invoice service did not answer within 10 s' });
  });
});
