/**
 * Byte tokenizer and chat template. A message is `<role> utf8(content) <end>`; a generation prompt
 * ends with `<assistant>` and the model continues until it emits `<end>`. The assistant flags mark
 * which tokens carry SFT loss: an assistant message's content bytes and its `<end>` (the role marker
 * itself is part of the prompt the model is given).
 */
import { SPECIAL } from './config.js';
import type { ChatMessage } from './engine.js';

const ROLE_TOKEN: Record<string, number> = {
  system: SPECIAL.system,
  developer: SPECIAL.system,
  user: SPECIAL.user,
  assistant: SPECIAL.assistant,
  tool: SPECIAL.tool,
};

const encoder = new TextEncoder();

export function encodeText(text: string): number[] {
  return Array.from(encoder.encode(text));
}

/** Decodes token ids to text, skipping special tokens (invalid UTF-8 becomes U+FFFD). */
export function decodeTokens(ids: number[]): string {
  return new TextDecoder().decode(Uint8Array.from(ids.filter((t) => t < 256)));
}

/** Text of a message: content, else its tool calls as JSON, so tool-calling turns still train. */
function messageText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) {
    return (m.content as unknown[])
      .map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
      .join('');
  }
  if (m.tool_calls !== undefined) return JSON.stringify(m.tool_calls);
  return '';
}

export interface Encoded {
  tokens: number[];
  /** trainable[i] = 1 when tokens[i] is produced by the assistant (content or its end marker). */
  trainable: number[];
}

export function encodeChat(messages: ChatMessage[], opts: { addGenerationPrompt: boolean }): Encoded {
  const tokens: number[] = [];
  const trainable: number[] = [];
  messages.forEach((m, i) => {
    const role = ROLE_TOKEN[m.role];
    if (role === undefined) throw new Error(`messages[${i}].role: unknown role "${String(m.role)}"`);
    const body = [...encodeText(messageText(m)), SPECIAL.end];
    const isAssistant = m.role === 'assistant' ? 1 : 0;
    tokens.push(role, ...body);
    trainable.push(0, ...body.map(() => isAssistant));
  });
  if (opts.addGenerationPrompt) {
    tokens.push(SPECIAL.assistant);
    trainable.push(0);
  }
  return { tokens, trainable };
}
