/**
 * Emitter dialects that no attribute table can read: frameworks whose spans name the operation, the
 * agent or the messages in keys of their own, some of them generic (`input`, `output`, `target`,
 * `model`, `input_tokens`) and so readable only once the emitter is recognised. Each dialect is
 * recognised by the span (its scope, its name, or keys only that emitter writes) and ADDS the
 * standard keys (`gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.input.messages`, ...) that
 * say the same thing; the emitter's own keys stay (they are kept as custom attributes), so the
 * mapping table and the carriers then read the span like any OTel GenAI span.
 *
 * - BeeAI through OpenInference's BeeAI instrumentation: every emitter event of the framework is
 *   a span (`backend.openai.chat.start-1`, `agent.react.update-3`, `tool.dynamic.getWeather.success-1`),
 *   named by the attribute `target`. The model's answer is on `.chat.success`, the tool call on
 *   the agent's `toolSuccess` / `toolError` (ReAct) or the tool's own `success` / `error` carrying
 *   the model's call in `metadata.toolCallMsg` (ToolCalling); everything else is an `event`
 *   (silent). ReAct answers are BeeAI's instruction lines (`Thought:` / `Function Name:` /
 *   `Function Input:` / `Final Answer:`): read as reasoning, a tool call and the answer text.
 *   Python BeeAI writes the same spans with snake_case event names (`partial_update`, `tool_success`); its
 *   agent's `tool_success` carries no data, so a ReAct tool call is read from the agent's `update` event
 *   that holds the tool's name, input and output, and from the tool's own run (`tool.<namespace>.success` /
 *   `.error`: input, output, and the failure as `exception.*` attributes on an OK span).
 * - VoltAgent (`@voltagent/core` observability): `span.type` llm / tool, agent spans with
 *   `entity.type = agent`; plain `input` / `output`, `llm.messages`, `llm.usage.*`.
 * - Claude Code session tracing (`com.anthropic.claude_code.tracing`, what the Claude Agent SDK
 *   runs): `claude_code.interaction` (`user_prompt`), `claude_code.llm_request` (`new_context`
 *   blocks such as `[USER]` / `[TOOL RESULT: id]`, `response.model_output`, plain `input_tokens`),
 *   `claude_code.tool` (`tool_input` after a `[TOOL INPUT: name]` line, the `tool.output` event;
 *   `subagent_type` names the sub-agent the Agent tool runs).
 */
import { isObj, jsonish, str, type Obj } from './lenient.js';
import type { SpanEvent } from './extract.js';

/** The span with the standard keys its dialect implies, or the same object when no dialect applies. */
export function withDialect(a: Obj, spanName: string, scopeName: string | null, events: readonly SpanEvent[]): Obj {
  if (typeof a.target === 'string' && (a['openinference.span.kind'] != null || a['beeai.version'] != null)) return beeai(a);
  if (a['beeai.version'] != null) return beeai(a);
  if (scopeName === '@voltagent/core' || (a['entity.type'] != null && (a['span.type'] != null || a['agent.state'] != null))) return voltagent(a);
  if (scopeName === 'com.anthropic.claude_code.tracing' || spanName.startsWith('claude_code.')) return claudeCode(a, spanName, events);
  return a;
}

const set = (a: Obj, add: Obj): Obj => {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(add)) if (v !== undefined && v !== null && out[k] == null) out[k] = v;
  return out;
};

// ---- BeeAI (OpenInference BeeAI instrumentation) ----

const BEEAI_TARGET = /^(backend|agent|tool)\.(.+)\.([A-Za-z_]+)$/;
/** Python BeeAI names its events in snake_case (`partial_update`, `tool_success`), TypeScript in camelCase. */
const camelEvent = (e: string) => e.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** BeeAI tool outputs are serialized as `{result: value}`. */
function unwrapResult(v: unknown): unknown {
  const j = jsonish(v);
  return isObj(j) && Object.keys(j).length === 1 && 'result' in j ? (typeof j.result === 'string' ? j.result : JSON.stringify(j.result)) : v;
}

function beeai(a: Obj): Obj {
  // Python BeeAI records an event's failure as `exception.*` attributes on a span whose status is OK: the
  // span failed (the OTel status as attributes, `otel.status_code`, read by normalize.ts).
  const failure = str(a['exception.message']);
  const out = beeaiEvent(a);
  return failure ? set(out, { 'otel.status_code': 'ERROR', 'otel.status_description': failure }) : out;
}

function beeaiEvent(a: Obj): Obj {
  if (a['beeai.version'] != null) return set(a, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': str(a.source) });
  const target = a.target as string;
  if (target === 'groupId') return set(a, { 'gen_ai.operation.name': 'chain' });
  const m = BEEAI_TARGET.exec(target);
  if (!m) return a;
  const [, kind, path, name] = m as unknown as [string, string, string, string];
  const event = camelEvent(name);
  if (kind === 'backend' && /(^|\.)chat$/.test(path)) {
    // The request is on `.start`, the answer on `.success` (or `.error`); the other events are silent.
    const messages = beeaiMessages(a);
    if (event === 'success' || event === 'error') return set(a, { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': messages.output });
    return set(a, { 'gen_ai.operation.name': 'event', 'gen_ai.input.messages': messages.input });
  }
  if (kind === 'agent' && (event === 'toolSuccess' || event === 'toolError')) {
    return set(a, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': str(a['tool.name']),
      'gen_ai.tool.call.arguments': a['tool.parameters'], 'gen_ai.tool.call.result': event === 'toolSuccess' ? unwrapResult(a['output.value']) : undefined,
    });
  }
  if (kind === 'agent' && event === 'update' && str(a['tool.name']) && a['output.value'] != null) {
    // A finished ReAct tool step as the agent reports it (tool name, input and output in one `update`): the
    // only record of the call in Python BeeAI, whose `tool_success` event carries no data. TypeScript reports
    // the same call as `toolSuccess` just before it: the walk shows a call repeated in a row once.
    return set(a, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': str(a['tool.name']),
      'gen_ai.tool.call.arguments': a['tool.parameters'], 'gen_ai.tool.call.result': unwrapResult(a['output.value']),
    });
  }
  if (kind === 'tool' && (event === 'success' || event === 'error')) {
    const meta = jsonish(a.metadata);
    const call = isObj(meta) && isObj(meta.toolCallMsg) ? meta.toolCallMsg : null;
    if (call) {
      return set(a, {
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': str(call.toolName), 'gen_ai.tool.call.id': str(call.toolCallId),
        'gen_ai.tool.call.arguments': a['tool.parameters'] ?? (call.args !== undefined ? JSON.stringify(call.args) : undefined),
        'gen_ai.tool.call.result': event === 'success' ? unwrapResult(a['output.value']) : undefined,
      });
    }
    // Without the model's call (a ReAct agent runs the tool itself): the tool's own run, the only record of a
    // failed Python ReAct tool (its `error` event holds the exception). Named by its emitter namespace
    // (`tool.search.wikipedia.error` → `wikipedia`); the agent reports the same call next under the tool's
    // declared name, and the walk shows the two as one call (docs/chat.md "One call reported twice").
    return set(a, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': path.split('.').at(-1),
      'gen_ai.tool.call.arguments': a['tool.parameters'], 'gen_ai.tool.call.result': event === 'success' ? unwrapResult(a['output.value']) : undefined,
    });
  }
  return set(a, { 'gen_ai.operation.name': 'event' });
}

/**
 * BeeAI model messages: `input.value` / `output.value` hold the framework's messages (content parts in
 * the Vercel AI SDK form, tool calls and results included); the flattened `llm.*_messages` keep only
 * the text, and a streamed answer as one message per chunk. ReAct answers are parsed into parts.
 */
function beeaiMessages(a: Obj): { input: unknown; output: unknown } {
  const output = jsonish(a['output.value']);
  let out: unknown = Array.isArray(output) ? output : undefined;
  if (Array.isArray(output) && output.every((m) => isObj(m) && m.role === 'assistant' && Array.isArray(m.content) && m.content.every((p) => isObj(p) && p.type === 'text'))) {
    // A streamed answer: one message per chunk, joined as sent; BeeAI's ReAct lines parsed when present.
    const text = output.flatMap((m) => (m as { content: { text?: string }[] }).content.map((p) => p.text ?? '')).join('');
    out = [{ role: 'assistant', parts: reactParts(text) ?? [{ type: 'text', content: text }] }];
  }
  const input = jsonish(a['input.value']);
  return { input: Array.isArray(input) ? input : undefined, output: out };
}

const REACT_FIELDS: Record<string, string> = {
  'Thought:': 'thought', 'Function Name:': 'tool', 'Function Input:': 'input', 'Function Output:': 'output', 'Final Answer:': 'final',
};

/** BeeAI ReAct instruction lines as parts: reasoning, a tool call, the final answer. Null when the text is not in that form. */
export function reactParts(text: string): Obj[] | null {
  if (!/^\s*Thought:/.test(text)) return null;
  const fields: Record<string, string> = {};
  let current: string | null = null;
  for (const line of text.split('\n')) {
    const prefix = Object.keys(REACT_FIELDS).find((p) => line.startsWith(p));
    if (prefix) {
      current = REACT_FIELDS[prefix]!;
      fields[current] = line.slice(prefix.length).trimStart();
    } else if (current) fields[current] += `\n${line}`;
  }
  const parts: Obj[] = [];
  if (fields.thought) parts.push({ type: 'reasoning', content: fields.thought.trim() });
  if (fields.tool) {
    const raw = (fields.input ?? '').trim();
    parts.push({ type: 'tool_call', id: null, name: fields.tool.trim(), arguments: jsonish(raw) ?? raw });
  }
  if (fields.final !== undefined) parts.push({ type: 'text', content: fields.final.trim() });
  return parts.length ? parts : null;
}

// ---- VoltAgent ----

function voltagent(a: Obj): Obj {
  const type = str(a['span.type']);
  if (type === 'tool') {
    return set(a, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': str(a['tool.call.id']) });
  }
  if (type === 'llm') {
    return set(a, {
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': str(a['llm.model']), 'gen_ai.input.messages': a['llm.messages'],
      'gen_ai.usage.input_tokens': a['llm.usage.prompt_tokens'], 'gen_ai.usage.output_tokens': a['llm.usage.completion_tokens'],
    });
  }
  if (type !== null || a['entity.type'] !== 'agent') return a;
  // An agent run (a sub-agent's span also names its parent as `entity.name`).
  const sub = a['agent.is_subagent'] === true || a['voltagent.is_subagent'] === true;
  return set(a, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': sub ? str(a['subagent.name']) ?? str(a['entity.name']) : str(a['entity.name']),
    'gen_ai.input.messages': a.input, 'gen_ai.output.messages': a.output,
    'gen_ai.system_instructions': a['agent.instructions'], 'gen_ai.request.model': a['ai.model.name'],
    'gen_ai.conversation.id': a['voltagent.conversation_id'] ?? a['conversation.id'],
  });
}

// ---- Claude Code session tracing ----

/** `[TOOL INPUT: name]\n{...}` and `[TOOL RESULT: x]\n...`: the text after the header line. */
const afterHeader = (v: unknown): string | null => {
  const s = str(v);
  if (s === null) return null;
  const m = /^\[[A-Z ]+(?::[^\]]*)?\]\n/.exec(s);
  return m ? s.slice(m[0].length) : s;
};

/** MCP content blocks (`[{type: 'text', text}]`) as their text. */
function blocksText(s: string): string {
  const j = jsonish(s);
  if (Array.isArray(j) && j.length && j.every((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')) return j.map((b) => (b as { text: string }).text).join('\n');
  return s;
}

/** `new_context`: blocks headed `[USER]`, `[USER PROMPT]`, `[ASSISTANT]`, `[TOOL RESULT: id]`. */
export function claudeContext(v: unknown): Obj[] {
  const s = str(v);
  if (!s) return [];
  const out: Obj[] = [];
  const re = /^\[(USER PROMPT|USER|ASSISTANT|TOOL RESULT: ([^\]\n]+))\]\n/gm;
  const heads = [...s.matchAll(re)];
  heads.forEach((h, i) => {
    const body = s.slice(h.index + h[0].length, i + 1 < heads.length ? heads[i + 1]!.index : s.length).replace(/\n+$/, '');
    if (h[2] !== undefined) out.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: h[2], response: blocksText(body) }] });
    else out.push({ role: h[1] === 'ASSISTANT' ? 'assistant' : 'user', content: body });
  });
  return out;
}

/** Anthropic-convention input (cache excluded) made inclusive; non-numbers pass through untouched. */
function inclusiveInput(input: unknown, cacheRead: unknown, cacheWrite: unknown): unknown {
  const n = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
  const i = n(input);
  if (i === null) return input;
  return i + (n(cacheRead) ?? 0) + (n(cacheWrite) ?? 0);
}

function claudeCode(a: Obj, name: string, events: readonly SpanEvent[]): Obj {
  if (name === 'claude_code.interaction') {
    const ctx = claudeContext(a.new_context);
    const prompt = str(a.user_prompt);
    return set(a, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.input.messages': ctx.length ? ctx : prompt ? [{ role: 'user', content: prompt }] : undefined });
  }
  if (name === 'claude_code.llm_request') {
    const ctx = claudeContext(a.new_context);
    const answer = str(a['response.model_output']);
    return set(a, {
      'gen_ai.operation.name': 'chat', 'gen_ai.request.model': str(a.model),
      'gen_ai.input.messages': ctx.length ? ctx : undefined,
      'gen_ai.output.messages': answer ? [{ role: 'assistant', content: answer }] : undefined,
      // Claude Code reports Anthropic's usage buckets: its input_tokens EXCLUDE the cache reads and
      // writes, while Loupe's input_tokens include them (semantics §3, as OTel GenAI's do); adding them
      // here keeps cached tokens counted once and priced once (issue 18, AgentMeasure's H5 class).
      'gen_ai.usage.input_tokens': inclusiveInput(a.input_tokens, a.cache_read_tokens, a.cache_creation_tokens), 'gen_ai.usage.output_tokens': a.output_tokens,
      'gen_ai.usage.cache_read.input_tokens': a.cache_read_tokens, 'gen_ai.usage.cache_creation.input_tokens': a.cache_creation_tokens,
    });
  }
  if (name === 'claude_code.tool') {
    const output = events.find((e) => e.name === 'tool.output')?.attributes.output;
    const result = output ?? (a.new_context != null ? blocksText(afterHeader(a.new_context) ?? '') : undefined);
    return set(a, {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': afterHeader(a.tool_input), 'gen_ai.tool.call.result': result,
      // The Agent (Task) tool runs a sub-agent inside it.
      'gen_ai.agent.name': str(a.subagent_type),
    });
  }
  return a;
}
