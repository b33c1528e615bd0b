/**
 * Recorded messages and tool definitions in the shape an OpenAI-compatible endpoint takes
 * (chat completions): GenAI parts (text, tool_call, tool_call_response) become content, tool_calls
 * and `tool` messages; OTel-style tool definitions (`{type, name, parameters}`) become
 * `{type: 'function', function: {...}}`. Reasoning parts are not sent (an endpoint cannot take them back).
 */
import type { SpanMessage } from '../../domain/span.js';
import { messageText } from '../../domain/chat/messages.js';

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));

export function toOpenAiMessages(system: string[], messages: SpanMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = system.filter((s) => s).map((content) => ({ role: 'system', content }));
  let n = 0;
  for (const m of messages) {
    const parts = m.parts ?? [];
    const role = m.role === 'human' ? 'user' : m.role === 'ai' || m.role === 'model' ? 'assistant' : m.role;
    if (role === 'system' || role === 'developer') {
      out.push({ role: 'system', content: messageText(m) });
      continue;
    }
    const responses = parts.filter((p) => p.type === 'tool_call_response');
    if (role === 'tool' || responses.length) {
      for (const p of responses) out.push({ role: 'tool', tool_call_id: typeof p.id === 'string' && p.id ? p.id : `call_${n++}`, content: text(p.response) });
      if (!responses.length) out.push({ role: 'tool', tool_call_id: `call_${n++}`, content: messageText(m) });
      continue;
    }
    if (role === 'assistant') {
      const calls = parts
        .filter((p) => p.type === 'tool_call')
        .map((p) => ({ id: typeof p.id === 'string' && p.id ? p.id : `call_${n++}`, type: 'function' as const, function: { name: String(p.name ?? ''), arguments: typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {}) } }));
      const content = messageText(m) || null;
      out.push(calls.length ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content: content ?? '' });
      continue;
    }
    out.push({ role: 'user', content: messageText(m) });
  }
  return out;
}

/** Tool definitions as chat completions takes them; ones without a name are dropped. */
export function toOpenAiTools(defs: unknown[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const d of defs) {
    if (!d || typeof d !== 'object') continue;
    const o = d as Record<string, unknown>;
    const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
    if (typeof fn.name !== 'string' || !fn.name) continue;
    out.push({
      type: 'function',
      function: {
        name: fn.name,
        ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
        parameters: fn.parameters ?? fn.input_schema ?? { type: 'object', properties: {} },
      },
    });
  }
  return out;
}
