/**
 * Messages of every dialect normalized to `{role, content, finish_reason, parts}` (semantics §3):
 * content = text parts joined by a newline, tool calls rendered as JSON; parts kept in the OTel GenAI
 * parts shape (`text`, `tool_call`, `tool_call_response`, `reasoning`) for the chat view.
 * Accepted message shapes: OTel parts (`{role, parts}`), OpenAI chat (`content` + `tool_calls`),
 * Vercel AI SDK content arrays (`tool-call`, `tool-result`), Anthropic blocks (`tool_use`, `tool_result`).
 */
import type { MessagePart, SpanMessage } from '../../domain/span.js';
import { isObj, jsonish, str, type Obj } from './lenient.js';

const bigintSafe = (_k: string, x: unknown) => (typeof x === 'bigint' ? x.toString() : x);
const toText = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v, bigintSafe));

function toolCall(id: unknown, name: unknown, args: unknown): MessagePart {
  return { type: 'tool_call', id: str(id), name: str(name) ?? '', arguments: jsonish(args) ?? null };
}

/** One content item of any dialect as a part (null when it carries nothing). */
function part(p: unknown): MessagePart | null {
  if (typeof p === 'string') return { type: 'text', content: p };
  if (!isObj(p)) return null;
  const t = typeof p.type === 'string' ? p.type : 'text';
  switch (t) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', content: toText(p.content ?? p.text) };
    case 'tool_call':
      return toolCall(p.id, p.name, p.arguments);
    case 'tool-call':
      return toolCall(p.toolCallId, p.toolName, p.args ?? p.input);
    case 'tool_use':
      return toolCall(p.id, p.name, p.input);
    case 'function':
      return isObj(p.function) ? toolCall(p.id, p.function.name, p.function.arguments) : null;
    case 'tool_call_response':
      return { type: 'tool_call_response', id: str(p.id), response: jsonish(p.response ?? p.result) ?? null };
    case 'tool-result':
      return { type: 'tool_call_response', id: str(p.toolCallId), response: jsonish(p.result ?? p.output) ?? null };
    case 'tool_result':
      return { type: 'tool_call_response', id: str(p.tool_use_id), response: jsonish(p.content) ?? null };
    case 'reasoning':
    case 'thinking':
      return { type: 'reasoning', content: toText(p.content ?? p.text ?? p.thinking) };
    default:
      return { ...p, type: t };
  }
}

/** Renders parts as the row's `content`: texts joined by newline, tool calls / results as JSON. */
export function contentOf(parts: MessagePart[]): string {
  const out: string[] = [];
  for (const p of parts) {
    if (p.type === 'text') out.push(p.content ?? '');
    else if (p.type === 'tool_call') out.push(JSON.stringify({ id: p.id ?? null, name: p.name, arguments: p.arguments }, bigintSafe));
    else if (p.type === 'tool_call_response') out.push(toText(p.response));
  }
  return out.join('\n');
}

/** One message of any dialect, normalized. */
export function normalizeMessage(m: unknown, defaultRole: string): SpanMessage | null {
  if (typeof m === 'string') return { role: defaultRole, content: m, finish_reason: '', parts: [{ type: 'text', content: m }] };
  if (!isObj(m)) return null;
  // gen_ai.choice events and chat-completion choices wrap the message.
  const inner = isObj(m.message) ? m.message : m;
  const role = str(inner.role) ?? defaultRole;
  const parts: MessagePart[] = [];
  const c = inner.parts ?? inner.content ?? inner.contents;
  if (Array.isArray(c)) {
    for (const x of c) {
      const p = part(isObj(x) && isObj(x.message_content) ? x.message_content : x);
      if (p) parts.push(p);
    }
  } else if (c !== undefined && c !== null && c !== '') parts.push({ type: 'text', content: toText(c) });
  const calls = inner.tool_calls ?? inner.toolCalls;
  if (Array.isArray(calls)) {
    for (const tc of calls) {
      if (!isObj(tc)) continue;
      const f = isObj(tc.function) ? tc.function : isObj(tc.tool_call) ? (isObj(tc.tool_call.function) ? tc.tool_call.function : tc.tool_call) : tc;
      const id = tc.id ?? (isObj(tc.tool_call) ? tc.tool_call.id : undefined) ?? tc.toolCallId;
      parts.push(toolCall(id, f.name ?? tc.toolName, f.arguments ?? tc.args ?? tc.input));
    }
  }
  if (isObj(inner.function_call)) parts.push(toolCall(null, inner.function_call.name, inner.function_call.arguments));
  const toolCallId = str(inner.tool_call_id);
  if (role === 'tool' && toolCallId && parts.length === 1 && parts[0]!.type === 'text') {
    parts[0] = { type: 'tool_call_response', id: toolCallId, response: jsonish(parts[0]!.content) ?? null };
  }
  const finish = str(m.finish_reason ?? m.finishReason ?? inner.finish_reason) ?? '';
  return { role, content: contentOf(parts), finish_reason: finish, parts };
}

/** A list of messages from an array, a JSON string of one, or a single message. */
export function normalizeMessages(v: unknown, defaultRole: string): SpanMessage[] {
  const j = jsonish(v);
  const list = Array.isArray(j) ? j : isObj(j) && Array.isArray(j.messages) ? j.messages : j === null || j === undefined ? [] : [j];
  const out: SpanMessage[] = [];
  for (const m of list) {
    const n = normalizeMessage(m, defaultRole);
    if (n) out.push(n);
  }
  return out;
}

/**
 * Flattened indexed keys (`gen_ai.prompt.0.role`, `llm.input_messages.1.message.content`,
 * `gen_ai.completion.0.tool_calls.0.name`) rebuilt as nested objects, ordered by index.
 */
export function unflattenIndexed(attrs: Obj, prefix: string): Obj[] {
  const byIndex = new Map<number, Obj>();
  for (const key in attrs) {
    if (!key.startsWith(prefix)) continue;
    const path = key.slice(prefix.length).split('.');
    const idx = Number(path[0]);
    if (!Number.isInteger(idx)) continue;
    let node = byIndex.get(idx);
    if (!node) byIndex.set(idx, (node = {}));
    for (let i = 1; i < path.length - 1; i++) {
      const seg = path[i]!;
      if (!isObj(node[seg])) node[seg] = {};
      node = node[seg] as Obj;
    }
    if (path.length > 1) node[path[path.length - 1]!] = attrs[key];
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, o]) => arrayify(o) as Obj);
}

/** Objects whose keys are all indexes become arrays (tool_calls.0.* → tool_calls[0]). */
function arrayify(v: unknown): unknown {
  if (!isObj(v)) return v;
  const keys = Object.keys(v);
  if (keys.length && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => Number(a) - Number(b)).map((k) => arrayify(v[k]));
  for (const k of keys) v[k] = arrayify(v[k]);
  return v;
}
