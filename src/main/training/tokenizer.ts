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

/**
 * Text of a message: its content, then its tool calls, one line each in the canonical form
 * `{"name":"<function>","arguments":{...}}` (compact JSON). Constrained decoding produces exactly
 * this form (json-constraint.ts) and tools.ts parses it back into `tool_calls`, so tool-calling
 * turns train and sample in one format.
 */
export function messageText(m: ChatMessage): string {
  let text = '';
  if (typeof m.content === 'string') text = m.content;
  else if (Array.isArray(m.content)) {
    text = (m.content as unknown[]).map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  }
  const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as unknown[]).map(toolCallLine).filter((l): l is string => l !== null) : [];
  return [text, ...calls].filter((x) => x !== '').join('\n');
}

/** One tool call (chat-completions shape) as its canonical line; arguments that are not a JSON object stay a JSON string. */
export function toolCallLine(call: unknown): string | null {
  const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
  if (!fn || typeof fn.name !== 'string') return null;
  let args: unknown = fn.arguments ?? {};
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
    } catch {
      // not JSON: kept as the string it is
    }
  }
  return JSON.stringify({ name: fn.name, arguments: args });
}

export interface Encoded {
  tokens: number[];
  /** trainable[i] = 1 when tokens[i] is produced by the assistant (content or its end marker). */
  trainable: number[];
}

/** `onlyLastAssistant`: SFT's assistant_turns "last" — only the last assistant message is trainable. */
export function encodeChat(messages: ChatMessage[], opts: { addGenerationPrompt: boolean; onlyLastAssistant?: boolean }): Encoded {
  const tokens: number[] = [];
  const trainable: number[] = [];
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  messages.forEach((m, i) => {
    const role = ROLE_TOKEN[m.role];
    if (role === undefined) throw new Error(`messages[${i}].role: unknown role "${String(m.role)}"`);
    const body = [...encodeText(messageText(m)), SPECIAL.end];
    const isAssistant = m.role === 'assistant' && (!opts.onlyLastAssistant || i === lastAssistant) ? 1 : 0;
    tokens.push(role, ...body);
    trainable.push(0, ...body.map(() => isAssistant));
  });
  if (opts.addGenerationPrompt) {
    tokens.push(SPECIAL.assistant);
    trainable.push(0);
  }
  return { tokens, trainable };
}
