/**
 * Structured GenAI content of one span, whichever dialect carried it: input/output messages, system
 * instructions and tool definitions. Order of preference per field: current OTel GenAI attributes,
 * deprecated OTel span events, OpenLLMetry indexed keys, OpenInference indexed keys and
 * `input.value`/`output.value`, Vercel AI SDK `ai.*`.
 */
import type { SpanMessage } from '../../domain/span.js';
import { isObj, jsonish, str, type Obj } from './lenient.js';
import { contentOf, normalizeMessage, normalizeMessages, unflattenIndexed } from './messages.js';
import { hasIndexedKeys } from './mapping.js';

export interface SpanEvent {
  name: string;
  attributes: Obj;
}

export interface Content {
  input: SpanMessage[];
  output: SpanMessage[];
  system: string[];
  toolDefinitions: string | null;
}

const EVENT_ROLES: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

function fromEvents(events: SpanEvent[], out: Content): void {
  for (const e of events) {
    const a = e.attributes;
    if (e.name === 'gen_ai.content.prompt') out.input.push(...normalizeMessages(a['gen_ai.prompt'], 'user'));
    else if (e.name === 'gen_ai.content.completion') out.output.push(...normalizeMessages(a['gen_ai.completion'], 'assistant'));
    else if (EVENT_ROLES[e.name]) {
      const m = normalizeMessage({ role: EVENT_ROLES[e.name], ...a, content: jsonish(a.content) }, EVENT_ROLES[e.name]!);
      if (m) out.input.push(m);
    } else if (e.name === 'gen_ai.choice') {
      const m = normalizeMessage({ ...a, message: jsonish(a.message) }, 'assistant');
      if (m) out.output.push(m);
    }
  }
}

/** OpenInference `input.value` / `output.value`: JSON of a request/response or plain text. */
function fromValue(v: unknown, role: 'user' | 'assistant'): SpanMessage[] {
  const j = jsonish(v);
  if (typeof j === 'string') return j ? normalizeMessages(j, role) : [];
  if (!isObj(j)) return [];
  if (Array.isArray(j.messages)) return normalizeMessages(j.messages, role);
  if (Array.isArray(j.choices)) return normalizeMessages(j.choices, role);
  return [];
}

/** Vercel `ai.prompt`: `{prompt}` or `{system, messages}`. */
function fromVercelPrompt(v: unknown, out: Content): void {
  const j = jsonish(v);
  if (!isObj(j)) return;
  if (typeof j.system === 'string') out.system.push(j.system);
  if (Array.isArray(j.messages)) out.input.push(...normalizeMessages(j.messages, 'user'));
  else if (j.prompt !== undefined) out.input.push(...normalizeMessages(typeof j.prompt === 'string' ? j.prompt : j.prompt, 'user'));
}

function toolDefinitions(a: Obj, indexed: boolean): string | null {
  const cur = a['gen_ai.tool.definitions'];
  if (cur !== undefined && cur !== null) return typeof cur === 'string' ? cur : JSON.stringify(cur);
  const vercel = a['ai.prompt.tools'];
  if (Array.isArray(vercel)) return JSON.stringify(vercel.map((t) => jsonish(t)));
  if (typeof vercel === 'string') return vercel;
  if (!indexed) return null;
  const oi = unflattenIndexed(a, 'llm.tools.');
  if (oi.length) return JSON.stringify(oi.map((t) => (isObj(t.tool) ? jsonish(t.tool.json_schema) : t)));
  const fns = unflattenIndexed(a, 'llm.request.functions.');
  if (fns.length) return JSON.stringify(fns.map((f) => ({ type: 'function', name: f.name, description: f.description, parameters: jsonish(f.parameters) })));
  return null;
}

function systemTexts(v: unknown): string[] {
  const j = jsonish(v);
  const list = Array.isArray(j) ? j : [j];
  const out: string[] = [];
  for (const p of list) {
    if (typeof p === 'string') out.push(p);
    else if (isObj(p)) {
      const t = str(p.content ?? p.text);
      if (t) out.push(t);
    }
  }
  return out;
}

export function extractContent(a: Obj, events: SpanEvent[]): Content {
  const indexed = hasIndexedKeys(a);
  const out: Content = { input: [], output: [], system: [], toolDefinitions: toolDefinitions(a, indexed) };
  const si = a['gen_ai.system_instructions'];
  if (si !== undefined && si !== null) out.system.push(...systemTexts(si));

  if (a['gen_ai.input.messages'] != null) out.input = normalizeMessages(a['gen_ai.input.messages'], 'user');
  if (a['gen_ai.output.messages'] != null) out.output = normalizeMessages(a['gen_ai.output.messages'], 'assistant');
  if (!out.input.length && !out.output.length && events.length) fromEvents(events, out);
  if (!out.input.length && indexed) {
    const p = unflattenIndexed(a, 'gen_ai.prompt.');
    if (p.length) out.input = p.map((m) => normalizeMessage(m, 'user')!).filter(Boolean);
  }
  if (!out.input.length && indexed) {
    const p = unflattenIndexed(a, 'llm.input_messages.');
    if (p.length) out.input = p.map((m) => normalizeMessage(m, 'user')!).filter(Boolean);
  }
  if (!out.input.length && a['ai.prompt.messages'] != null) out.input = normalizeMessages(a['ai.prompt.messages'], 'user');
  if (!out.input.length && a['ai.prompt'] != null) fromVercelPrompt(a['ai.prompt'], out);
  if (!out.input.length && a['input.value'] != null) out.input = fromValue(a['input.value'], 'user');

  if (!out.output.length && indexed) fillIndexedOutput(a, out);
  if (!out.output.length && (a['ai.response.text'] != null || a['ai.response.toolCalls'] != null)) {
    const m = normalizeMessage(
      { role: 'assistant', content: a['ai.response.text'] ?? '', toolCalls: jsonish(a['ai.response.toolCalls']), finish_reason: a['ai.response.finishReason'] },
      'assistant',
    );
    if (m && m.parts.length) out.output = [m];
  }
  if (!out.output.length && a['output.value'] != null) out.output = fromValue(a['output.value'], 'assistant');

  // Outputs with no parts at all (`parts: []` beside flattened tool calls, as LiteLLM writes) carry nothing.
  if (out.output.length && out.output.every((m) => m.parts.length === 0)) {
    const finish = out.output[0]!.finish_reason;
    const before = out.output;
    out.output = [];
    if (indexed) fillIndexedOutput(a, out);
    if (!out.output.length) out.output = before;
    else if (!out.output[0]!.finish_reason) out.output[0]!.finish_reason = finish;
  }
  // System-role input messages are the instructions when no explicit system_instructions came.
  if (!out.system.length) for (const m of out.input) if (m.role === 'system' && m.content) out.system.push(m.content);
  return out;
}

function fillIndexedOutput(a: Obj, out: Content): void {
  for (const prefix of ['gen_ai.completion.', 'llm.output_messages.']) {
    const c = unflattenIndexed(a, prefix);
    if (c.length) {
      out.output = c.map((m) => normalizeMessage(m, 'assistant')!).filter(Boolean);
      return;
    }
  }
}

export { contentOf };
