/**
 * Messages of every dialect normalized to `{role, content, finish_reason, parts}` (semantics §3):
 * content = text parts joined by a newline, tool calls rendered as JSON; parts kept in the OTel GenAI
 * parts shape (`text`, `tool_call`, `tool_call_response`, `reasoning`, `blob`/`uri`/`file` as sent)
 * for the chat view. Accepted message shapes (docs/ingest.md has a sample of each):
 * - OTel GenAI parts (`{role, parts}`), OpenAI chat (`content` + `tool_calls`, `tool_call_id`,
 *   `function_call`), OpenAI Responses items (`function_call`, `function_call_output`, `message`, and
 *   the provider's own tool items such as `web_search_call`: see responsesToolItem);
 * - Vercel AI SDK content arrays (`tool-call`, `tool-result` with `output: {type, value}`);
 * - Anthropic blocks (`tool_use`, `tool_result`, `thinking`), Bedrock/Strands blocks (`toolUse`,
 *   `toolResult`, `reasoningContent`), Google GenAI / ADK (`{role: 'model', parts: [{text},
 *   {function_call}, {function_response}]}`);
 * - LangChain messages, plain (`{type: 'human', content}`) or serialized
 *   (`{lc: 1, id: [..., 'AIMessage'], kwargs}`).
 * Framework role names map to the interface's: model/ai/bot → assistant, human → user,
 * function → tool, developer → system.
 */
import type { MessagePart, SpanMessage } from '../../domain/span.js';
import { isObj, jsonish, str, type Obj } from './lenient.js';
import { jsonWithBigints } from '../../../shared/text.js';

const toText = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : jsonWithBigints(v)!);

const ROLES: Record<string, string> = {
  user: 'user', human: 'user', humanmessage: 'user',
  assistant: 'assistant', ai: 'assistant', model: 'assistant', bot: 'assistant', aimessage: 'assistant', aimessagechunk: 'assistant',
  system: 'system', developer: 'system', systemmessage: 'system',
  tool: 'tool', function: 'tool', ipython: 'tool', toolmessage: 'tool', functionmessage: 'tool',
  // AutoGen (autogen_core.models) message classes, serialized with their `type`.
  usermessage: 'user', assistantmessage: 'assistant', functionexecutionresultmessage: 'tool',
};

/** A framework's role name as the interface's role (unknown names kept, lower-cased). */
export function normalizeRole(role: unknown): string | null {
  const r = str(role);
  if (!r) return null;
  const l = r.toLowerCase();
  return ROLES[l] ?? l;
}

function toolCall(id: unknown, name: unknown, args: unknown): MessagePart {
  return { type: 'tool_call', id: str(id), name: str(name) ?? '', arguments: jsonish(args) ?? null };
}

function toolResponse(id: unknown, response: unknown, name?: unknown): MessagePart {
  const n = str(name);
  return { type: 'tool_call_response', id: str(id), ...(n ? { name: n } : {}), response: jsonish(response) ?? null };
}

/** Vercel AI SDK 5 tool outputs are `{type: 'json' | 'text' | 'error-text' ..., value}`. */
const unwrapOutput = (o: unknown): unknown => (isObj(o) && typeof o.type === 'string' && 'value' in o ? o.value : o);

/** Strands serializes a non-object JSON block value as `{$value: v}`. */
export const unwrapJsonBlock = (v: unknown): unknown => (isObj(v) && Object.keys(v).length === 1 && '$value' in v ? v.$value : v);

/** Tool-result content given as blocks (`[{type: 'text', text}]`, `[{text}]`, `[{json}]`) → text or value. */
function blockContent(c: unknown): unknown {
  if (!Array.isArray(c)) return c;
  const texts = c.map((b) => (isObj(b) ? (typeof b.text === 'string' ? b.text : b.json !== undefined ? toText(unwrapJsonBlock(b.json)) : null) : typeof b === 'string' ? b : null));
  return texts.every((t) => t !== null) ? texts.join('\n') : c;
}

/** A part object without a `type` (Google GenAI / ADK, Bedrock / Strands content blocks). */
function untypedPart(p: Obj): MessagePart | null {
  const fc = p.function_call ?? p.functionCall;
  if (isObj(fc)) return toolCall(fc.id, fc.name, fc.args ?? fc.arguments);
  const fr = p.function_response ?? p.functionResponse;
  if (isObj(fr)) return toolResponse(fr.id, fr.response, fr.name);
  if (isObj(p.toolUse)) return toolCall(p.toolUse.toolUseId, p.toolUse.name, p.toolUse.input);
  if (isObj(p.toolResult)) return toolResponse(p.toolResult.toolUseId, blockContent(p.toolResult.content));
  if (isObj(p.reasoningContent)) {
    const rt = p.reasoningContent.reasoningText;
    return { type: 'reasoning', content: toText(isObj(rt) ? rt.text : rt) };
  }
  const blob = p.inline_data ?? p.inlineData;
  if (isObj(blob)) return { type: 'blob', mime_type: str(blob.mime_type ?? blob.mimeType), content: str(blob.data) ?? undefined };
  const file = p.file_data ?? p.fileData;
  if (isObj(file)) return { type: 'uri', mime_type: str(file.mime_type ?? file.mimeType), uri: str(file.file_uri ?? file.fileUri) };
  // AutoGen: an AssistantMessage's content is a list of FunctionCall {id, name, arguments}; a
  // FunctionExecutionResultMessage's a list of FunctionExecutionResult {call_id, name, content, is_error}.
  if (typeof p.call_id === 'string' && 'content' in p && 'is_error' in p) return toolResponse(p.call_id, p.content, p.name);
  if (typeof p.id === 'string' && typeof p.name === 'string' && typeof p.arguments === 'string' && Object.keys(p).length === 3) return toolCall(p.id, p.name, p.arguments);
  if (typeof p.text === 'string') return { type: p.thought === true ? 'reasoning' : 'text', content: p.text };
  // Bedrock / Strands `{json: value}` block (Strands wraps a non-object value as `{$value: ...}`).
  if (p.json !== undefined && Object.keys(p).length === 1) return { type: 'text', content: toText(unwrapJsonBlock(p.json)) };
  if (typeof p.content === 'string') return { type: 'text', content: p.content };
  return null;
}

/** One content item of any dialect as a part (null when it carries nothing). */
function part(p: unknown): MessagePart | null {
  if (typeof p === 'string') return { type: 'text', content: p };
  if (!isObj(p)) return null;
  if (typeof p.type !== 'string') return untypedPart(p);
  const t = p.type;
  switch (t) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', content: toText(p.content ?? p.text) };
    case 'tool_call':
      return isObj(p.function) ? toolCall(p.id, p.function.name, p.function.arguments) : toolCall(p.id, p.name, p.arguments ?? p.args);
    case 'tool-call':
      return toolCall(p.toolCallId, p.toolName, p.args ?? p.input);
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return toolCall(p.id, p.name, p.input);
    // LangChain v1 standard blocks for a tool the provider ran (`server_tool_call` / `server_tool_result`).
    case 'server_tool_call':
      return toolCall(p.id, p.name, p.args ?? p.arguments);
    case 'server_tool_result':
      return toolResponse(p.tool_call_id, p.output ?? p.status);
    case 'function':
      return isObj(p.function) ? toolCall(p.id, p.function.name, p.function.arguments) : null;
    case 'function_call':
      return toolCall(p.call_id ?? p.id, p.name, p.arguments);
    case 'tool_call_response':
      return toolResponse(p.id, p.response ?? p.result, p.name);
    case 'function_call_output':
      return toolResponse(p.call_id ?? p.id, p.output);
    case 'tool-result':
      return toolResponse(p.toolCallId, unwrapOutput(p.result ?? p.output), p.toolName);
    case 'tool_result':
      return toolResponse(p.tool_use_id, blockContent(p.content));
    case 'refusal':
      return { type: 'text', content: toText(p.refusal ?? p.content) };
    case 'reasoning':
    case 'thinking':
      return { type: 'reasoning', content: toText(p.content ?? p.text ?? p.thinking ?? (Array.isArray(p.summary) ? blockContent(p.summary) : undefined)) };
    default:
      // Anthropic's results of its server tools (`web_search_tool_result`, `code_execution_tool_result`, ...).
      if (t.endsWith('_tool_result') && typeof p.tool_use_id === 'string') return toolResponse(p.tool_use_id, blockContent(p.content));
      // OpenAI Responses items answering a call the client ran (`computer_call_output`, `custom_tool_call_output`, ...).
      if (t.endsWith('_call_output') && typeof p.call_id === 'string') return toolResponse(p.call_id, p.output);
      return { ...p, type: t };
  }
}

/** Part types ending in `_call` that are not Responses tool items (read by `part`). */
const NOT_ITEMS = new Set(['function_call', 'tool_call', 'server_tool_call']);

/** Keys of a Responses tool item that are not its arguments (its identity, state and results). */
const ITEM_KEYS = new Set(['id', 'type', 'status', 'call_id', 'name', 'server_label', 'results', 'outputs', 'output', 'result', 'error', 'index']);

/**
 * OpenAI Responses tool items other than `function_call` (`web_search_call`, `file_search_call`,
 * `code_interpreter_call`, `mcp_call`, `image_generation_call`, `computer_call`, `custom_tool_call`, ...),
 * as sent in a response's `output` or kept by LangChain in `content` / `additional_kwargs.tool_outputs`.
 * An item with a `call_id` asks the client to run a tool (its result comes later, as a `*_call_output`
 * item): a tool call. An item without one is a tool the provider ran inside the model call: the call and
 * its result (results, outputs, output, error, else the status), both named by the item's id. Null for other items.
 */
function responsesToolItem(p: Obj): MessagePart[] | null {
  const t = p.type;
  if (typeof t !== 'string' || !t.endsWith('_call') || NOT_ITEMS.has(t)) return null;
  const rest = Object.fromEntries(Object.entries(p).filter(([k]) => !ITEM_KEYS.has(k)));
  const args = 'arguments' in p ? p.arguments : 'action' in p ? p.action : 'input' in p ? p.input : Object.keys(rest).length ? rest : null;
  const name = str(p.name) ?? t.slice(0, -'_call'.length);
  if (typeof p.call_id === 'string' && p.call_id) return [toolCall(p.call_id, name, args)];
  const result = p.error != null ? { error: p.error } : (p.results ?? p.outputs ?? p.output ?? p.status ?? null);
  return [toolCall(p.id, name, args), toolResponse(p.id, result, name)];
}

/** The parts one content item of any dialect stands for (a provider-run tool item is two: its call and its result). */
function partsOf(p: unknown): MessagePart[] {
  const item = isObj(p) ? responsesToolItem(p) : null;
  if (item) return item;
  const one = part(p);
  return one ? [one] : [];
}

/** Renders parts as the row's `content`: texts joined by newline, tool calls / results as JSON. */
export function contentOf(parts: MessagePart[]): string {
  const out: string[] = [];
  for (const p of parts) {
    if (p.type === 'text') out.push(p.content ?? '');
    else if (p.type === 'tool_call') out.push(jsonWithBigints({ id: p.id ?? null, name: p.name, arguments: p.arguments })!);
    else if (p.type === 'tool_call_response') out.push(toText(p.response));
  }
  return out.join('\n');
}

/** LangChain's serialized form `{lc: 1, type: 'constructor', id: [..., 'AIMessage'], kwargs}` → its kwargs with a role. */
function unwrapLangChain(m: Obj): Obj {
  if (m.lc === undefined || !isObj(m.kwargs)) return m;
  const cls = Array.isArray(m.id) ? String(m.id[m.id.length - 1] ?? '') : '';
  return { role: m.kwargs.role ?? m.kwargs.type ?? cls, ...m.kwargs };
}

/** Role of a message object: `role`, else LangChain's `type`, else an event name's role. */
function roleOf(inner: Obj, defaultRole: string): string {
  const r = normalizeRole(inner.role) ?? (typeof inner.type === 'string' && ROLES[inner.type.toLowerCase()] ? ROLES[inner.type.toLowerCase()] : null);
  return r ?? defaultRole;
}

/** One message of any dialect, normalized. */
export function normalizeMessage(m: unknown, defaultRole: string): SpanMessage | null {
  if (typeof m === 'string') return { role: normalizeRole(defaultRole) ?? defaultRole, content: m, finish_reason: '', parts: [{ type: 'text', content: m }] };
  if (!isObj(m)) return null;
  // OpenAI Responses input/output items that are not messages (function calls and their outputs, the
  // provider's own tool items, reasoning).
  const t = typeof m.type === 'string' ? m.type : '';
  if (t === 'function_call' || t === 'function_call_output' || t === 'reasoning' || (m.role === undefined && /_call(_output)?$/.test(t))) {
    const ps = partsOf(m);
    if (!ps.length) return null;
    const role = ps.every((p) => p.type === 'tool_call_response') ? 'tool' : 'assistant';
    return { role, content: contentOf(ps), finish_reason: '', parts: ps };
  }
  // gen_ai.choice events and chat-completion choices wrap the message.
  const inner = unwrapLangChain(isObj(m.message) ? m.message : m);
  const role = roleOf(inner, normalizeRole(defaultRole) ?? defaultRole);
  const parts: MessagePart[] = [];
  const c = inner.parts ?? inner.content ?? inner.contents ?? (typeof inner.text === 'string' ? inner.text : undefined);
  if (Array.isArray(c)) {
    for (const x of c) parts.push(...partsOf(isObj(x) && isObj(x.message_content) ? x.message_content : x));
  } else if (c !== undefined && c !== null && c !== '') {
    // One content object (Google GenAI parts, MCP content) rather than a list of them.
    parts.push((isObj(c) && role !== 'tool' ? part(c) : null) ?? { type: 'text', content: toText(c) });
  }
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
  // LangChain's ChatOpenAI (`output_version` v0) keeps the provider's tool items of a Responses answer in
  // `additional_kwargs.tool_outputs`; serializers that keep additional_kwargs (Langfuse's Python handler) send them there.
  const hosted = isObj(inner.additional_kwargs) ? inner.additional_kwargs.tool_outputs : undefined;
  if (Array.isArray(hosted)) for (const x of hosted) parts.push(...partsOf(x));
  // A tool-role message carrying plain content is the tool's result.
  const toolCallId = str(inner.tool_call_id ?? inner.toolCallId ?? (role === 'tool' ? inner.id : undefined));
  if (role === 'tool' && parts.length === 1 && parts[0]!.type === 'text') {
    parts[0] = toolResponse(toolCallId, parts[0]!.content, inner.name);
  }
  const finish = str(m.finish_reason ?? m.finishReason ?? inner.finish_reason) ?? '';
  // Tool returns sent back to the model (Pydantic AI puts them in a user-role request) are the tool's, not the user's.
  const toolOnly = parts.length > 0 && parts.every((p) => p.type === 'tool_call_response');
  // A call of a tool is the model's, whatever role it was sent under (Koog sends it under its `Tool` role).
  const callsOnly = parts.length > 0 && parts.every((p) => p.type === 'tool_call');
  return { role: toolOnly ? 'tool' : callsOnly && role === 'tool' ? 'assistant' : role, content: contentOf(parts), finish_reason: finish, parts };
}

/** A list of messages from an array, a JSON string of one, or a single message. */
export function normalizeMessages(v: unknown, defaultRole: string): SpanMessage[] {
  const j = jsonish(v);
  const list = Array.isArray(j) ? j : isObj(j) && Array.isArray(j.messages) ? j.messages : j === null || j === undefined ? [] : [j];
  const out: SpanMessage[] = [];
  // LangChain chat-model inputs are a batch: `[[m1, m2, ...]]`.
  const flat = list.length === 1 && Array.isArray(list[0]) ? (list[0] as unknown[]) : list;
  for (const m of flat) {
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
