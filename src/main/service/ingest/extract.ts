/**
 * Structured GenAI content of one span, whichever dialect carried it: input/output messages, system
 * instructions and tool definitions. The carriers are listed in CARRIERS (docs/ingest.md shows a
 * sample of each); per field the first carrier that yields messages wins, in this order: current OTel
 * GenAI attributes, span events (deprecated OTel, Semantic Kernel, Strands, Pydantic AI's `events`),
 * OpenLLMetry and OpenInference indexed keys, Vercel AI SDK `ai.*`, Pydantic AI agent-run history,
 * Google ADK `gcp.vertex.agent.*`, then the generic value carriers (OpenInference `input.value` /
 * `output.value`, Langfuse `langfuse.observation.*`, OpenLLMetry `traceloop.entity.*`, Mastra's
 * `mastra.agent_run.*` / `mastra.model_step.*`). Emitters with keys of their own are first given the
 * standard keys by dialects.ts.
 */
import type { SpanMessage } from '../../domain/span.js';
import { isObj, jsonish, str, type Obj } from './lenient.js';
import { contentOf, normalizeMessage, normalizeMessages, unflattenIndexed } from './messages.js';
import { hasIndexedKeys } from './mapping.js';
import { pythonLiteral } from './python-literal.js';

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

/** A message event's body: `content` (deprecated OTel, Strands: JSON of blocks), or Semantic Kernel's `gen_ai.event.content`. */
function eventMessage(name: string, a: Obj): SpanMessage | null {
  const role = EVENT_ROLES[name]!;
  const sk = jsonish(a['gen_ai.event.content']);
  if (isObj(sk)) return normalizeMessage({ role, ...sk }, role);
  return normalizeMessage({ role, ...a, content: jsonish(a.content) }, role);
}

/** `gen_ai.choice`: `message` is a message object, or (Strands) a JSON list of content blocks. */
function choiceMessage(a: Obj): SpanMessage | null {
  const sk = jsonish(a['gen_ai.event.content']);
  if (isObj(sk)) return normalizeMessage(sk, 'assistant');
  const msg = jsonish(a.message);
  if (isObj(msg)) return normalizeMessage({ ...a, message: msg }, 'assistant');
  const content = msg ?? jsonish(a.content);
  return normalizeMessage({ role: 'assistant', content, finish_reason: a.finish_reason }, 'assistant');
}

/** Span events (and Pydantic AI's `events` attribute, the same events as one JSON list). */
function fromEvents(events: SpanEvent[], out: Content): void {
  for (const e of events) {
    const a = e.attributes;
    if (e.name === 'gen_ai.content.prompt') out.input.push(...normalizeMessages(a['gen_ai.prompt'], 'user'));
    else if (e.name === 'gen_ai.content.completion') out.output.push(...normalizeMessages(a['gen_ai.completion'], 'assistant'));
    else if (e.name === 'gen_ai.client.inference.operation.details') {
      // Newer emitters (Strands with the latest GenAI conventions) put the message attributes on one event.
      if (a['gen_ai.input.messages'] != null) out.input.push(...normalizeMessages(a['gen_ai.input.messages'], 'user'));
      if (a['gen_ai.output.messages'] != null) out.output.push(...normalizeMessages(a['gen_ai.output.messages'], 'assistant'));
      if (a['gen_ai.system_instructions'] != null) out.system.push(...systemTexts(a['gen_ai.system_instructions']));
    } else if (EVENT_ROLES[e.name]) {
      const m = eventMessage(e.name, a);
      if (m && m.parts.length) out.input.push(m);
    } else if (e.name === 'gen_ai.choice') {
      const m = choiceMessage(a);
      if (m && m.parts.length) out.output.push(m);
    }
  }
}

/** Pydantic AI (event mode) / Logfire: `events` = JSON list of event bodies, each naming itself in `event.name`. */
function attributeEvents(v: unknown): SpanEvent[] {
  const j = jsonish(v);
  if (!Array.isArray(j)) return [];
  const out: SpanEvent[] = [];
  for (const e of j) {
    if (!isObj(e)) continue;
    const name = str(e['event.name']) ?? (str(e.role) ? `gen_ai.${str(e.role)}.message` : e.message ? 'gen_ai.choice' : null);
    if (name) out.push({ name, attributes: e });
  }
  return out;
}

/** The trailing run of assistant messages with text: the answer held in a conversation history. */
function lastAnswer(history: SpanMessage[]): SpanMessage[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user') return [];
    if (m.role === 'assistant' && m.parts.some((p) => p.type === 'text' && p.content)) return [m];
  }
  return [];
}

/** A history up to and including its last user message (what the agent was told). */
function askedIn(history: SpanMessage[]): SpanMessage[] {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.role === 'user') return history.slice(0, i + 1);
  return history;
}

/** Python's and JavaScript's spellings of "no value", as `str()` writes them into a value carrier. */
const NO_VALUE = new Set(['None', 'null', 'undefined']);

/**
 * A value carrier's value: JSON text parsed (jsonish); nothing for Python's `None` (or `null`); a JSON
 * string literal unquoted (an instrumentation that JSON-encodes a plain question writes `"\"hi\""`);
 * a Python literal read (`str()` of a dict: `{'result': 'It is sunny.\n'}`, python-literal.ts).
 */
function valueText(v: unknown): unknown {
  const j = jsonish(v);
  if (typeof j !== 'string') return j;
  const t = j.trim();
  if (NO_VALUE.has(t)) return null;
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const u: unknown = JSON.parse(t);
      if (typeof u === 'string') return u;
    } catch {
      /* not a JSON string: the text as it is */
    }
  }
  if (/^[[{(]\s*['"([{]/.test(t)) {
    const py = pythonLiteral(t);
    if (py !== undefined && typeof py === 'object') return py;
  }
  return j;
}

/** `args`: the Langfuse SDK's `@observe` records a call's input as `{args: [...], kwargs: {...}}`. */
const INPUT_KEYS = ['messages', 'input', 'query', 'question', 'prompt', 'user_input', 'task', 'message', 'args'];
const OUTPUT_KEYS = ['messages', 'output', 'final_output', 'answer', 'response', 'result', 'text', 'content', 'outputs'];

/**
 * A generic value carrier (OpenInference `input.value` / `output.value`, Langfuse observation input /
 * output, OpenLLMetry entity input / output): plain text, a message list, a single message, a
 * conversation state `{messages}` (outputs keep only its answer), LangChain `{generations}`, OpenAI
 * `{choices}`, or an object whose one well-known key holds one of those.
 */
function fromValue(v: unknown, role: 'user' | 'assistant', depth = 0): SpanMessage[] {
  const j = valueText(v);
  if (j === null) return [];
  if (typeof j === 'string') return j ? normalizeMessages(j, role) : [];
  if (Array.isArray(j)) {
    // `[["user", "hi"]]` tuples (LangChain prompts) or a message list.
    const msgs = normalizeMessages(j.map((x) => (Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' ? { role: x[0], content: x[1] } : x)), role);
    return role === 'assistant' ? (msgs.length > 1 ? lastAnswer(msgs) : msgs) : msgs;
  }
  if (!isObj(j) || depth > 2) return [];
  if (Array.isArray(j.generations)) {
    const g = (j.generations as unknown[]).flat();
    return normalizeMessages(g.map((x) => (isObj(x) ? (x.message ?? x.text) : x)), 'assistant');
  }
  if (Array.isArray(j.choices)) return normalizeMessages(j.choices, role);
  if (typeof j.role === 'string' || j.lc !== undefined) return normalizeMessages([j], role);
  for (const k of role === 'user' ? INPUT_KEYS : OUTPUT_KEYS) {
    if (j[k] === undefined || j[k] === null) continue;
    const inner = k === 'messages' ? j[k] : fromValue(j[k], role, depth + 1);
    if (k === 'messages') {
      const msgs = normalizeMessages(Array.isArray(inner) ? inner.map((x) => (Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' ? { role: x[0], content: x[1] } : x)) : inner, role);
      return role === 'assistant' ? lastAnswer(msgs) : msgs;
    }
    if ((inner as SpanMessage[]).length) return inner as SpanMessage[];
  }
  return [];
}

/**
 * any-agent's `gen_ai.output` on a model call: the answer's text (`gen_ai.output.type` text), or the tool
 * calls asked for as a JSON list of `{"tool.name", "tool.args"}` (type json); anything else as a value.
 */
function fromAnyAgentOutput(v: unknown): SpanMessage[] {
  const j = jsonish(v);
  if (Array.isArray(j) && j.length && j.every((c) => isObj(c) && typeof c['tool.name'] === 'string')) {
    const m = normalizeMessage({ role: 'assistant', parts: j.map((c) => ({ type: 'tool_call', id: null, name: (c as Obj)['tool.name'], arguments: (c as Obj)['tool.args'] })) }, 'assistant');
    return m ? [m] : [];
  }
  return fromValue(v, 'assistant');
}

/** Vercel `ai.prompt`: `{prompt}` or `{system, messages}`. */
function fromVercelPrompt(v: unknown, out: Content): void {
  const j = jsonish(v);
  if (!isObj(j)) return;
  if (typeof j.system === 'string') out.system.push(j.system);
  if (Array.isArray(j.messages)) out.input.push(...normalizeMessages(j.messages, 'user'));
  else if (j.prompt !== undefined) out.input.push(...normalizeMessages(j.prompt, 'user'));
}

/**
 * ADK shows a sub-agent what other agents did as user-role content opening with the text part
 * "For context:" ("[concierge] called tool `transfer_to_agent` ..."). That is another agent
 * speaking, not the user: it is read as an assistant message, so the user's own question stays the
 * trailing user input (and a handoff's task).
 */
function adkContext(c: unknown): unknown {
  if (!isObj(c) || c.role !== 'user' || !Array.isArray(c.parts)) return c;
  const first = c.parts[0];
  return isObj(first) && first.text === 'For context:' ? { ...c, role: 'assistant' } : c;
}

/** Google ADK: `gcp.vertex.agent.llm_request` = `{model, config: {system_instruction}, contents}`. */
function fromAdkRequest(v: unknown, out: Content): void {
  const j = jsonish(v);
  if (!isObj(j)) return;
  if (Array.isArray(j.contents)) out.input.push(...normalizeMessages(j.contents.map(adkContext), 'user'));
  const cfg = isObj(j.config) ? j.config : {};
  const si = cfg.system_instruction ?? cfg.systemInstruction;
  if (typeof si === 'string' && si) out.system.push(si);
  else if (isObj(si)) {
    const m = normalizeMessage(si, 'system');
    if (m?.content) out.system.push(m.content);
  }
}

/** Google ADK: `gcp.vertex.agent.llm_response` = `{content: {role: 'model', parts}, finish_reason}`. */
function fromAdkResponse(v: unknown): SpanMessage[] {
  const j = jsonish(v);
  if (!isObj(j) || !isObj(j.content)) return [];
  const m = normalizeMessage({ ...j.content, finish_reason: j.finish_reason ?? j.finishReason }, 'assistant');
  return m && m.parts.length ? [m] : [];
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

/**
 * Streamed answers recorded as one output message per chunk (each without its own finish reason)
 * are one message: texts concatenated as sent. Several messages that each end with a finish reason
 * are separate choices and stay apart (docs/ingest.md, decisions).
 */
export function joinChunks(output: SpanMessage[]): SpanMessage[] {
  if (output.length < 2) return output;
  const textOnly = output.every((m) => m.role === output[0]!.role && m.parts.length > 0 && m.parts.every((p) => p.type === 'text'));
  if (!textOnly) return output;
  if (output.slice(0, -1).some((m) => m.finish_reason)) return output;
  const text = output.map((m) => m.parts.map((p) => p.content ?? '').join('')).join('');
  const parts = [{ type: 'text', content: text }];
  return [{ role: output[0]!.role, content: contentOf(parts), finish_reason: output[output.length - 1]!.finish_reason, parts }];
}

/**
 * The value carriers read when nothing more specific is present, in order. `gen_ai.prompt` /
 * `gen_ai.completion` as whole JSON documents are LangSmith's OTel mode (a run's inputs and outputs:
 * `{model, messages}` / a chat completion with `choices` on model calls, `{input}` / `{outputs}` on
 * chains); OpenLLMetry's indexed `gen_ai.prompt.N.*` keys are read before them.
 */
const VALUE_INPUTS = ['input.value', 'langfuse.observation.input', 'traceloop.entity.input', 'langfuse.trace.input', 'mastra.agent_run.input', 'mastra.model_step.input', 'gen_ai.prompt'];
const VALUE_OUTPUTS = ['output.value', 'langfuse.observation.output', 'traceloop.entity.output', 'langfuse.trace.output', 'mastra.agent_run.output', 'mastra.model_step.output', 'gen_ai.completion'];

/**
 * `valueCarriers: false` for tool spans: their `input.value` / `output.value` (and the Langfuse /
 * OpenLLMetry equivalents) are the call's arguments and result, read by normalize.ts, not messages.
 */
export function extractContent(
  a: Obj,
  events: SpanEvent[],
  opts: { valueCarriers?: boolean; plainInputOutput?: boolean; readInput?: (v: unknown) => SpanMessage[] | null } = {},
): Content {
  const values = opts.valueCarriers !== false;
  // Plain `input` / `output` attributes are messages only on model calls (OpenAI Agents SDK generation spans via Logfire).
  const inputs = values ? (opts.plainInputOutput ? [...VALUE_INPUTS, 'input'] : VALUE_INPUTS) : [];
  const outputs = values ? (opts.plainInputOutput ? [...VALUE_OUTPUTS, 'output'] : VALUE_OUTPUTS) : [];
  const indexed = hasIndexedKeys(a);
  const out: Content = { input: [], output: [], system: [], toolDefinitions: toolDefinitions(a, indexed) };
  // Koog writes the system instructions of its GenAI spans under `system_instructions`.
  const si = a['gen_ai.system_instructions'] ?? (a['gen_ai.operation.name'] != null ? a['system_instructions'] : undefined);
  if (si !== undefined && si !== null) out.system.push(...systemTexts(si));

  // readInput: the import's message history (history.ts), which parses only what an earlier call did not send.
  if (a['gen_ai.input.messages'] != null) out.input = opts.readInput?.(a['gen_ai.input.messages']) ?? normalizeMessages(a['gen_ai.input.messages'], 'user');
  if (a['gen_ai.output.messages'] != null) out.output = normalizeMessages(a['gen_ai.output.messages'], 'assistant');
  if (!out.input.length && !out.output.length) {
    const evs = a.events != null ? [...events, ...attributeEvents(a.events)] : events;
    if (evs.length) fromEvents(evs, out);
    // Event lists that log the answer as one more gen_ai.assistant.message (no gen_ai.choice): the
    // assistant messages after the last user / tool message are the output, not the input.
    if (!out.output.length && out.input.length) {
      let i = out.input.length;
      while (i > 0 && out.input[i - 1]!.role === 'assistant') i--;
      if (i > 0 && i < out.input.length) out.output = out.input.splice(i);
    }
  }
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
  // Pydantic AI agent runs: the whole history (`pydantic_ai.all_messages`, older `all_messages_events`) and `final_result`.
  const history = a['pydantic_ai.all_messages'] ?? a['all_messages_events'];
  if (history != null && !out.input.length) {
    const h = normalizeMessages(history, 'user');
    out.input = askedIn(h);
    if (!out.output.length && a['final_result'] == null) out.output = lastAnswer(h);
  }
  if (!out.output.length && a['final_result'] != null) out.output = normalizeMessages(typeof a['final_result'] === 'string' ? a['final_result'] : JSON.stringify(a['final_result']), 'assistant');
  if (!out.input.length && a['gcp.vertex.agent.llm_request'] != null) fromAdkRequest(a['gcp.vertex.agent.llm_request'], out);
  for (const k of inputs) {
    if (out.input.length) break;
    if (a[k] != null) out.input = fromValue(a[k], 'user');
  }

  if (!out.output.length && indexed) fillIndexedOutput(a, out);
  if (!out.output.length && (a['ai.response.text'] != null || a['ai.response.toolCalls'] != null)) {
    const m = normalizeMessage(
      { role: 'assistant', content: a['ai.response.text'] ?? '', toolCalls: jsonish(a['ai.response.toolCalls']), finish_reason: a['ai.response.finishReason'] },
      'assistant',
    );
    if (m && m.parts.length) out.output = [m];
  }
  if (!out.output.length && a['gcp.vertex.agent.llm_response'] != null) out.output = fromAdkResponse(a['gcp.vertex.agent.llm_response']);
  if (!out.output.length && values && a['gen_ai.output'] != null) out.output = fromAnyAgentOutput(a['gen_ai.output']);
  for (const k of outputs) {
    if (out.output.length) break;
    if (a[k] != null) out.output = fromValue(a[k], 'assistant');
  }

  // Outputs with no parts at all (`parts: []` beside flattened tool calls, as LiteLLM writes) carry nothing.
  if (out.output.length && out.output.every((m) => m.parts.length === 0)) {
    const finish = out.output[0]!.finish_reason;
    const before = out.output;
    out.output = [];
    if (indexed) fillIndexedOutput(a, out);
    if (!out.output.length) out.output = before;
    else if (!out.output[0]!.finish_reason) out.output[0]!.finish_reason = finish;
  }
  out.output = joinChunks(out.output);
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
