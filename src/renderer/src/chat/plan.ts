/**
 * What the chat draws for each message, decided over all loaded turns at once (pure, unit-tested):
 * - an assistant message whose text is only tool-call requests (JSON) loses that text: each call is
 *   drawn once, by the tool_call message that ran it; a request no tool_call answers is drawn as a
 *   call line of its own (`unanswered`);
 * - a model call with no text (it only asked for tools, or its emitter recorded no output) is drawn as
 *   the step it was: "asks for get_weather(city="Tokyo")" from the tool calls that follow it, never an
 *   empty bubble; with no call after it, as a model call whose output was not recorded;
 * - an agent card (agent_start) is drawn only when that agent's model, instructions or tools differ
 *   from its previous card, so a conversation does not repeat the same card on every turn.
 */
import type { ChatMessage, Turn } from '../api/views';
import { parseToolRequests, type ToolRequest } from '../../../shared/tool-calls';

export interface PlannedMessage {
  message: ChatMessage;
  /** Not drawn (a repeated agent card). */
  hidden: boolean;
  /** The message's text was only tool-call requests; they are drawn by their tool_call messages. */
  requestOnly: boolean;
  /** Those requests (empty unless requestOnly). */
  requests: ToolRequest[];
  /** Requests of a requestOnly message that no later tool_call of the turn answers: drawn as call lines here. */
  unanswered: ToolRequest[];
  /** A model call without text, reasoning, error or any call after it: its output was not recorded. */
  unrecorded: boolean;
}

const cardSignature = (m: ChatMessage) =>
  JSON.stringify([m.agent_start?.model ?? null, m.agent_start?.system_instructions ?? null, m.agent_start?.tool_definitions ?? null, m.agent_version]);

/** Turns in display order (oldest first) → the plan of each turn's messages. */
export function planTurns(turns: readonly Turn[]): PlannedMessage[][] {
  const cards = new Map<string, string>();
  return turns.map((t) => planMessages(t.messages, cards));
}

export function planMessages(messages: readonly ChatMessage[], cards = new Map<string, string>()): PlannedMessage[] {
  const claimed = new Set<number>();
  return messages.map((m, i) => {
    const plan: PlannedMessage = { message: m, hidden: false, requestOnly: false, requests: [], unanswered: [], unrecorded: false };
    if (m.type === 'agent_start') {
      const who = m.agent_name ?? '';
      const sig = cardSignature(m);
      // An agent card that failed is always shown: the failure is news.
      if (cards.get(who) === sig && m.status_code !== 'ERROR') plan.hidden = true;
      cards.set(who, sig);
    } else if (m.type === 'assistant_message') {
      const requests = parseToolRequests(m.assistant_message?.text);
      if (requests) {
        plan.requestOnly = true;
        plan.requests = requests;
        for (const r of requests) {
          const j = messages.findIndex((x, k) => k > i && !claimed.has(k) && x.type === 'tool_call' && x.tool_call?.tool_name === r.name);
          if (j >= 0) claimed.add(j);
          else plan.unanswered.push(r);
        }
      } else if (!m.assistant_message?.text && m.assistant_message?.status !== 'ERROR' && m.status_code !== 'ERROR') {
        const calls = followingCalls(messages, i);
        if (calls.length) {
          plan.requestOnly = true;
          plan.requests = calls.map((x) => ({ id: null, name: x.tool_call?.tool_name ?? 'tool', args: x.tool_call?.tool_arguments ?? null }));
        } else plan.unrecorded = !m.assistant_message?.reasoning_content;
      }
    }
    return plan;
  });
}

/** The tool calls right after message i, up to the next message that is not a tool call (what that model call asked for). */
function followingCalls(messages: readonly ChatMessage[], i: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let k = i + 1; k < messages.length && messages[k]!.type === 'tool_call'; k++) out.push(messages[k]!);
  return out;
}
