/**
 * What the chat draws for each message, decided over all loaded turns at once (pure, unit-tested):
 * - an assistant message whose text is only tool-call requests (JSON) loses that text: each call is
 *   drawn once, by the tool_call message that ran it; a request no tool_call answers is drawn as a
 *   call line of its own (`unanswered`);
 * - an agent card (agent_start) is drawn only when that agent's model, instructions or tools differ
 *   from its previous card, so a conversation does not repeat the same card on every turn.
 */
import type { ChatMessage, Turn } from '../api/views';
import { parseToolRequests, type ToolRequest } from './toolCalls';

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
    const plan: PlannedMessage = { message: m, hidden: false, requestOnly: false, requests: [], unanswered: [] };
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
      }
    }
    return plan;
  });
}
