/**
 * The message-building walk of semantics §4.3: one ordered timeline from the span tree of a turn.
 * Pure: spans in, messages out (feedback is attached by the caller). Where this walk goes beyond
 * §4.3 (issue 10; docs/chat.md "Decisions" and docs/decisions/0004-chat-speakers.md):
 * - a sub-agent invoked by another agent is handed its task by that agent: an `agent_handoff`
 *   message spoken by the parent, never a user message; the user's own message of the turn is
 *   taken from the top-level agent's input;
 * - tool calls that only exist in a model's output (no tool span) are shown as `tool_call`
 *   messages, their results found in later inputs by call id; tool calls and tool results are never
 *   rendered into assistant text;
 * - wrapper spans (chains, workflows, unknown kinds) show their input once as the turn's question and
 *   their output only at the top of the walk when nothing inside answered;
 * - a failed span or tool carries its error (type, message without its stack trace, the whole text as
 *   detail) in its bubble; a tool's failure may be recorded on a wrapper directly inside it;
 * - a model call's bubble precedes the tools and sub-agents nested in it (Google ADK nests them);
 * - tool arguments / results are read through emitters' wrappers (tool-values.ts).
 */
import { isoFromNs } from '../time.js';
import type { MessagePart, SpanMessage } from '../span.js';
import { buildTree, subtree, usageTotals, type SpanTree } from './tree.js';
import { durationMs, nameSuffix, type ChatSpan } from './span.js';
import { message, messageText, reasoningFromParts, type ChatMessage, type ErrorFields, type MessageHead } from './messages.js';
import { CLASS_NAMES, ModelCalls, argumentsAreOwn, readToolResult } from './tool-values.js';
import { splitError } from './errors.js';
import { calledByWorkflow, callerOf, transferOf } from './transfer.js';

export const MAX_DEPTH = 200;

/** Figures of a bubble whose tokens and cost are shown on other bubbles (an agent's answer after its model calls' steps). */
const NO_USAGE = { input_tokens: null, output_tokens: null, reasoning_tokens: null, input_cost_usd: null, output_cost_usd: null, cost_usd: null };

/** `f`, computed on the first call and remembered. */
const once = <T>(f: () => T): (() => T) => {
  let done = false;
  let v: T;
  return () => {
    if (!done) { v = f(); done = true; }
    return v;
  };
};

const opOf = (s: ChatSpan): string => {
  const op = s.operation_name?.toLowerCase();
  if (op) return op;
  if (s.span_name.startsWith('invoke_agent')) return 'invoke_agent';
  if (s.span_name.startsWith('execute_tool')) return 'execute_tool';
  return '';
};

/** Operations that are one call to a model: they speak for the model (assistant text, tool calls). */
const MODEL_OPS = new Set(['chat', 'text_completion', 'generate_content', 'completion', 'generation']);

const isUser = (m: SpanMessage) => m.role?.toLowerCase() === 'user';
const isTool = (m: SpanMessage) => m.role?.toLowerCase() === 'tool';

/** Shortest text one message must have for another to count as repeating it inside a prompt. */
const MIN_REPEATED = 12;
/** One text holds the other whole (and the held one is not a short word that could recur by chance). */
function samePoint(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a.trim(), b] : [b.trim(), a];
  return short.length >= MIN_REPEATED && long.includes(short);
}

/** Text of the trailing run of user-role input messages (the new user input of this call), or null. */
export function trailingUserText(input: readonly SpanMessage[]): string | null {
  const run: string[] = [];
  for (let i = input.length - 1; i >= 0 && isUser(input[i]!); i--) run.unshift(messageText(input[i]!));
  const text = run.filter(Boolean).join('\n\n');
  return text || null;
}

/** The last user-role text among a span's input messages, or null. */
function lastUserText(input: readonly SpanMessage[]): string | null {
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUser(input[i]!)) {
      const t = messageText(input[i]!);
      if (t) return t;
    }
  }
  return null;
}

/**
 * Whether the last messages of an input (a tail of it, e.g. without the earlier turns' history) give
 * what the walk reads of a span's input for its text: the whole trailing run of user messages (a
 * non-user message precedes it in the tail) and the last user message with text. Tool-call parts
 * before the tail are not in it (turn facts are the turn's own; see TraceStore.turnsFacts).
 */
export function inputTailSuffices(tail: readonly SpanMessage[]): boolean {
  let i = tail.length - 1;
  while (i >= 0 && isUser(tail[i]!)) i--;
  return i >= 0 && lastUserText(tail) !== null;
}

/** Assistant text of a span: its assistant-side output messages' texts joined by a blank line (tool calls and results excluded). */
export function outputText(output: readonly SpanMessage[]): string {
  return output.filter((m) => !isUser(m) && !isTool(m)).map(messageText).filter(Boolean).join('\n\n');
}

/**
 * Ids of the tool calls a model call's own output also answers (call and result in the same output): tools
 * the provider ran inside the call (OpenAI Responses `web_search_call`, Anthropic server tools, Pydantic AI
 * built-in tools). Client-side calls are answered by a later request, never in the output that asks for them.
 */
function providerRun(s: ChatSpan): Set<string> {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const m of s.output_messages) {
    for (const p of Array.isArray(m.parts) ? m.parts : []) {
      if (typeof p.id !== 'string' || !p.id) continue;
      if (p.type === 'tool_call') calls.add(p.id);
      else if (p.type === 'tool_call_response') answered.add(p.id);
    }
  }
  return new Set([...calls].filter((id) => answered.has(id)));
}

/**
 * Two names of one tool: the same letters and digits whatever the case and separators, or one the start of
 * the other (an emitter namespace `openmeteo` for the tool `OpenMeteoTool`, `getWeather` for `get_weather`).
 */
function sameTool(a: string | null, b: string | null): boolean {
  const n = (x: string | null) => (x ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  const [x, y] = [n(a), n(b)];
  return !!x && !!y && (x.startsWith(y) || y.startsWith(x));
}

/** JSON text in one spelling (key order kept, spacing dropped); other text as it is. */
const canonical = (t: string | null): string | null => {
  if (t == null) return null;
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    return t;
  }
};

const jsonText = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** A span's error for its bubble: the message without a stack trace, the whole text kept as detail (errors.ts). */
const errorOf = (s: ChatSpan): ErrorFields => {
  if (s.status_code !== 'ERROR') return { error_type: s.error_type ?? null, error_message: null, error_detail: null };
  const e = splitError(s.status_message);
  return { error_type: s.error_type ?? null, error_message: e.message, error_detail: e.detail };
};

/** Where the walk is: the agent label in effect, and (inside a sub-agent) the agent that handed it its task. */
interface Ctx {
  agent: string | null;
  version: string | null;
  inAgent: boolean;
  /** The delegating agent when inside a sub-agent; null at the top of the turn. */
  from: { agent: string | null; version: string | null } | null;
  /** Last user-role text shown in this context (the user's message, or the sub-agent's task). */
  seen: { text: string | null };
  /**
   * The enclosing agent (or, outside agents, the trace) has a model call with output: wrappers stay
   * silent. A memoized thunk: it reads model spans' output messages, which a bounded walk over lazily
   * loaded spans (the paged trace chat) must not read up front.
   */
  quiet: () => boolean;
  /** Directly inside a tool span: a failed wrapper's error belongs to the tool call, not a bubble of its own. */
  underTool?: boolean;
}

/** Tool spans of the turn, so model outputs do not show a call twice. */
class ToolIndex {
  private readonly ids = new Set<string>();
  private readonly names = new Map<string, number>();
  readonly results = new Map<string, string>();
  readonly calls = new ModelCalls();

  /** `withParts`: the only spans whose messages can hold tool-call parts (a store's hint); all when absent. */
  constructor(spans: readonly ChatSpan[], withParts?: ReadonlySet<string>) {
    for (const s of spans) {
      if (opOf(s) === 'execute_tool') {
        if (s.tool_call_id) this.ids.add(s.tool_call_id);
        else if (s.tool_name) this.names.set(s.tool_name, (this.names.get(s.tool_name) ?? 0) + 1);
        if (s.tool_call_id && s.tool_name) this.names.set(`${s.tool_name}\u0000id`, (this.names.get(`${s.tool_name}\u0000id`) ?? 0) + 1);
      }
      if (withParts && !withParts.has(s.span_id)) continue;
      for (const [list, out] of [[s.input_messages, false], [s.output_messages, true]] as const) {
        for (const m of list) for (const p of Array.isArray(m.parts) ? m.parts : []) this.calls.add(p, out && MODEL_OPS.has(opOf(s)));
      }
      for (const m of [...s.input_messages, ...s.output_messages]) {
        for (const p of Array.isArray(m.parts) ? m.parts : []) {
          if (p.type === 'tool_call_response' && typeof p.id === 'string' && p.id && !this.results.has(p.id)) this.results.set(p.id, jsonText(p.response) ?? '');
        }
      }
    }
  }

  /** True when a tool span shows this call: same call id, or same tool name when ids cannot be compared. */
  covers(p: MessagePart): boolean {
    if (typeof p.id === 'string' && p.id && this.ids.has(p.id)) return true;
    const name = typeof p.name === 'string' ? p.name : '';
    for (const key of [name, ...(p.id ? [] : [`${name}\u0000id`])]) {
      const n = this.names.get(key) ?? 0;
      if (n > 0) {
        this.names.set(key, n - 1);
        return true;
      }
    }
    return false;
  }
}

export function buildMessages(spans: readonly ChatSpan[], tree: SpanTree<ChatSpan> = buildTree(spans)): ChatMessage[] {
  return walkMessages(spans, tree).messages;
}

/** Thrown inside the walk when a bounded walk has the messages it was asked for; caught at its end, never escapes. */
class Enough extends Error {}
const ENOUGH = new Enough('enough messages');

/**
 * The walk, optionally bounded (the paged trace chat, 'chat.tracePage'): with `limit`, it stops once
 * that many messages are out and the turn's user message is among them, because later messages can
 * then no longer change the first ones (only a turn without any user message is rewritten at the
 * end). `noUserInput` (no span has a user-role input message, so no user message can ever appear)
 * lets it stop without one; `toolPartSpans` (the only spans whose messages can hold tool-call parts)
 * spares the tool index from reading every other span's messages. Heavy span fields are read only for the spans visited, so a bounded walk
 * over a store that loads them lazily reads a handful of rows of a 20,000-span trace. `complete`
 * says whether the whole turn was walked.
 */
export function walkMessages(
  spans: readonly ChatSpan[],
  tree: SpanTree<ChatSpan> = buildTree(spans),
  opts: { limit?: number; noUserInput?: boolean; toolPartSpans?: ReadonlySet<string> } = {},
): { messages: ChatMessage[]; complete: boolean } {
  const out: ChatMessage[] = [];
  const topLevel: ChatSpan[] = [];
  // Built on first use: it reads every span's messages, which a bounded walk over lazily loaded spans
  // should not. Claims of model calls made before it exists are replayed in order when it is built,
  // so a claim's answer is the same as if the index had been there from the start.
  let toolIndex: ToolIndex | null = null;
  const pendingClaims: Array<[string | null, string | null]> = [];
  const index = (): ToolIndex => {
    if (!toolIndex) {
      toolIndex = new ToolIndex(spans, opts.toolPartSpans);
      for (const [id, name] of pendingClaims.splice(0)) toolIndex.calls.claim(id, name);
    }
    return toolIndex;
  };
  const tools = {
    covers: (p: MessagePart) => index().covers(p),
    get results() { return index().results; },
    /** The model's call for a tool span; `needed: false` records the claim without building the index. */
    claim: (id: string | null, name: string | null, needed: boolean) => {
      if (!toolIndex && !needed) {
        pendingClaims.push([id, name]);
        return null;
      }
      return index().calls.claim(id, name);
    },
  };
  const limit = opts.limit;
  if (limit !== undefined) {
    out.push = (...ms: ChatMessage[]) => {
      const n = Array.prototype.push.apply(out, ms);
      if (out.length >= limit && (userShown || opts.noUserInput)) throw ENOUGH;
      return n;
    };
  }
  let assistants = 0;
  /** The last tool call shown (emitTool), and how many assistant bubbles were out then. */
  let lastTool: { key: string; assistants: number; agent: string | null; callId: string | null; name: string | null; args: string | null; result: string | null; msg: ChatMessage } | null = null;
  /** Agents a tool passed control to (`gen_ai.transfer.mode` pass_control) → the agent that passed it. */
  const handedOver = new Map<string, string | null>();
  let lastAssistantText: string | null = null;
  let userShown = false;

  const head = (s: ChatSpan, agent: string | null, version: string | null): MessageHead => ({
    span_id: s.span_id,
    agent_name: agent,
    agent_version: version,
    status_code: s.status_code,
    started_at: s.start_ns == null ? null : isoFromNs(s.start_ns),
  });

  const emitUser = (s: ChatSpan, text: string | null, ctx: Ctx) => {
    if (!text || text === ctx.seen.text) return;
    // A framework's formatted prompt around what was just said (DSPy's `[[ ## question ## ]]` fields, a
    // planning template), or the plain question after its formatted prompt: the same words, said once.
    if (ctx.seen.text && samePoint(ctx.seen.text, text)) return;
    ctx.seen.text = text;
    if (ctx.from) {
      // Inside a sub-agent, "user" input is what the delegating agent told it.
      out.push(message('agent_handoff', head(s, ctx.from.agent, ctx.from.version), { from_agent: ctx.from.agent, to_agent: ctx.agent, text }));
      return;
    }
    out.push(message('user_message', head(s, 'User', null), { text, content_refs: [] }));
    userShown = true;
  };

  /**
   * Assistant bubble of a span: its text, reasoning, error, or (text '') the model call that only
   * asked for tools, so each model call keeps its model, tokens and cost in the timeline.
   */
  /** `usage`: the span's own figures (null), its subtree's (an agent's answer), or none ('none': they are on the steps shown). */
  const emitAssistant = (s: ChatSpan, ctx: Ctx, usage: ReturnType<typeof usageTotals> | null | 'none', step = false): boolean => {
    const text = outputText(s.output_messages);
    const reasoning = s.reasoning_content ?? reasoningFromParts(s.output_messages);
    const failed = s.status_code === 'ERROR';
    const calls = s.output_messages.some((m) => !isUser(m) && !isTool(m) && Array.isArray(m.parts) && m.parts.some((p) => p.type === 'tool_call'));
    // `step`: a model call is a step of the turn even when its emitter recorded no output (OpenLLMetry's
    // LangChain callbacks, Mastra and Strands drop the tool calls a model asked for; Claude Code records
    // no output without its detailed switch): it keeps its bubble (model, tokens, cost), text ''.
    if (!text && !reasoning && !failed && !calls && !step) return false;
    const u = usage === 'none' ? NO_USAGE : usage;
    out.push(
      message('assistant_message', head(s, ctx.agent, ctx.version), {
        text,
        model: s.response_model ?? s.request_model,
        reasoning_content: reasoning,
        reasoning_tokens: u ? u.reasoning_tokens : s.reasoning_tokens,
        input_tokens: u ? u.input_tokens : s.input_tokens,
        output_tokens: u ? u.output_tokens : s.output_tokens,
        input_cost_usd: u ? u.input_cost_usd : s.input_cost_usd,
        output_cost_usd: u ? u.output_cost_usd : s.output_cost_usd,
        total_cost_usd: u ? u.cost_usd : s.total_cost_usd,
        duration_ms: durationMs(s.start_ns, s.end_ns),
        status: s.status_code,
        content_refs: s.content_refs ?? [],
        ...errorOf(s),
      }),
    );
    assistants++;
    if (text) lastAssistantText = text;
    return true;
  };

  /**
   * Tool calls (and stray tool results) a model call produced that no tool span shows. `ranInside`: only
   * the calls the provider ran inside the call (their results are in the same output: OpenAI's
   * `web_search_call`, Anthropic's server tools), shown before the answer they fed; else only the others.
   */
  const emitModelToolCalls = (s: ChatSpan, ctx: Ctx, ranInside = false) => {
    const inside = providerRun(s);
    if (ranInside && !inside.size) return;
    let afterSpanCall = false;
    for (const m of s.output_messages) {
      for (const p of Array.isArray(m.parts) ? m.parts : []) {
        if (p.type === 'tool_call' && ranInside !== (typeof p.id === 'string' && inside.has(p.id))) continue;
        if (ranInside && p.type !== 'tool_call') continue;
        const covered = p.type === 'tool_call' && tools.covers(p);
        if (covered) afterSpanCall = true;
        const call = p.type === 'tool_call' && !covered;
        const stray = p.type === 'tool_call_response' && !(typeof p.id === 'string' && p.id);
        if (!call && !stray) continue;
        // A call the model asked for after one a tool span shows waits for that span (the order asked).
        (afterSpanCall ? deferred : out).push(message('tool_call', head(s, ctx.agent, ctx.version), {
          tool_name: typeof p.name === 'string' && p.name ? p.name : null,
          tool_arguments: call ? jsonText(p.arguments) : null,
          tool_result: call ? (typeof p.id === 'string' && p.id ? tools.results.get(p.id) ?? null : null) : jsonText(p.response),
          duration_ms: null,
          status: null,
          content_refs: [],
          error_type: null,
          error_message: null,
          error_detail: null,
        }));
      }
    }
  };

  /** Model-only tool calls waiting for the tool span of a call the model asked for before them. */
  const deferred: ChatMessage[] = [];
  const flushDeferred = () => {
    if (deferred.length) out.push(...deferred.splice(0));
  };

  /** True when a model call with output is in the subtree of `s` (or in the whole turn for null). */
  const speaks = (c: ChatSpan) => MODEL_OPS.has(opOf(c)) && c.output_messages.length > 0;
  const modelIn = (s: ChatSpan | null): boolean => (s === null ? spans.some(speaks) : subtree(tree, s).some(speaks));

  /**
   * The span that failed for a tool call: the tool span itself, else a failed wrapper directly inside it
   * (Claude Code records the failure on `claude_code.tool.execution` under `claude_code.tool`).
   */
  const failureOf = (s: ChatSpan): ChatSpan => {
    if (s.status_code === 'ERROR') return s;
    const child = (tree.children.get(s.span_id) ?? []).find((c) => c.status_code === 'ERROR' && !opOf(c));
    return child ?? s;
  };

  /** A tool span's call: arguments and result read through emitters' wrappers, the tool named by its result when the span is not. */
  const emitTool = (s: ChatSpan, here: Ctx) => {
    const res = readToolResult(s.tool_call_result);
    let name = s.tool_name ?? nameSuffix(s.span_name, 'execute_tool');
    if (res.name && (!name || CLASS_NAMES.has(name))) name = res.name;
    const own = argumentsAreOwn(s.tool_call_arguments);
    // One call reported twice in a row (BeeAI's `toolSuccess` and `update` events): the same agent, tool, call id
    // (or none), arguments and result, with no model call between, is shown once.
    const callId = s.tool_call_id ?? res.callId ?? null;
    const same = JSON.stringify([here.agent, name, callId, canonical(s.tool_call_arguments), canonical(res.text)]);
    if (lastTool?.key === same && lastTool.assistants === assistants) return;
    const failed = failureOf(s);
    // The same call reported by the tool's own run and then by the agent that ran it, named two ways (BeeAI:
    // `tool.search.wikipedia.error` and the ReAct agent's `Wikipedia`): one call, named as the agent names it,
    // with the result either report has, failed when either report failed.
    const prev = lastTool;
    if (prev && prev.assistants === assistants && prev.agent === here.agent && prev.callId === callId && prev.args === canonical(s.tool_call_arguments)
      && sameTool(prev.name, name) && (prev.result === null || res.text === null || prev.result === canonical(res.text))) {
      const p = prev.msg.tool_call!;
      if (name) p.tool_name = name;
      p.tool_result ??= res.text;
      if (failed.status_code === 'ERROR' && p.status !== 'ERROR') Object.assign(p, { status: failed.status_code, ...errorOf(failed) });
      Object.assign(prev, { key: same, name, result: canonical(p.tool_result) });
      return;
    }
    const model = tools.claim(callId, name, !own);
    const args = !own && model && model.arguments != null ? jsonText(model.arguments) : s.tool_call_arguments;
    const msg = message('tool_call', head(s, here.agent, here.version), {
      tool_name: name,
      tool_arguments: args,
      tool_result: res.text,
      duration_ms: durationMs(s.start_ns, s.end_ns),
      status: failed.status_code,
      content_refs: s.content_refs ?? [],
      ...errorOf(failed),
    });
    out.push(msg);
    lastTool = { key: same, assistants, agent: here.agent, callId, name, args: canonical(s.tool_call_arguments), result: canonical(res.text), msg };
    flushDeferred();
  };

  const walkChildren = (s: ChatSpan, ctx: Ctx, depth: number) => {
    const underAgent = opOf(s) === 'invoke_agent';
    const child = ctx.underTool && opOf(s) !== 'execute_tool' ? { ...ctx, underTool: false } : ctx;
    for (const c of tree.children.get(s.span_id) ?? []) visit(c, child, depth + 1, underAgent);
  };

  /** Agent spans directly inside `s`, and no model call or tool call of its own directly inside it. */
  const wrapsAgents = (s: ChatSpan) => {
    const kids = tree.children.get(s.span_id) ?? [];
    return kids.some((c) => opOf(c) === 'invoke_agent' && (c.agent_name ?? c.agent_id) != null && (c.agent_name ?? c.agent_id) !== (s.agent_name ?? s.agent_id))
      && !kids.some((c) => MODEL_OPS.has(opOf(c)) || opOf(c) === 'execute_tool');
  };

  /** The task a sub-agent was given: its own input, else the first input one of its model calls shows. */
  const taskOf = (s: ChatSpan): string | null => {
    const own = trailingUserText(s.input_messages) ?? lastUserText(s.input_messages);
    if (own) return own;
    const stack = [...(tree.children.get(s.span_id) ?? [])].reverse();
    while (stack.length) {
      const c = stack.pop()!;
      const op = opOf(c);
      if (op === 'invoke_agent' && (c.agent_name ?? c.agent_id) != null && (c.agent_name ?? c.agent_id) !== (s.agent_name ?? s.agent_id)) continue;
      if (op !== 'execute_tool') {
        // The trailing user input, else (ADK's sub-agents see other agents' turns after it) the last one.
        const t = trailingUserText(c.input_messages) ?? lastUserText(c.input_messages);
        if (t) return t;
      }
      stack.push(...[...(tree.children.get(c.span_id) ?? [])].reverse());
    }
    return null;
  };

  /** Model calls and tool calls inside `s` (not `s` itself). */
  const actsInside = (s: ChatSpan) => subtree(tree, s).some((c) => c !== s && (MODEL_OPS.has(opOf(c)) || opOf(c) === 'execute_tool'));

  const visitAgent = (s: ChatSpan, ctx: Ctx, depth: number, top: boolean): void => {
    const own = s.agent_name ?? s.agent_id;
    const agent = own ?? ctx.agent ?? nameSuffix(s.span_name, 'invoke_agent');
    const ver = s.agent_version ?? (own == null ? ctx.version : null);
    // The logical caller an invocation over an API or protocol names (transfer.ts): it hands the task over,
    // whichever span encloses the call (a local proxy agent, a workflow that is no agent span); a workflow
    // calling its first agent is no agent handing over: that agent answers the user.
    const caller = callerOf(s);
    const byCaller = caller != null && caller !== agent && (ctx.inAgent ? own !== ctx.agent : userShown && !calledByWorkflow(s));
    // The agent a tool passed control to (transfer above): its run is that hop, announced already.
    const handed = own != null && handedOver.has(own) && handedOver.get(own) === (byCaller ? caller : ctx.agent);
    if (handed) handedOver.delete(own);
    const sub = (ctx.inAgent && own != null && own !== ctx.agent) || byCaller;
    // Not an agent at all: a framework event recorded as an agent span (BeeAI's `partial_update`) is given
    // nothing, says nothing and runs nothing; it draws no card and no handoff.
    if (sub && !caller && !lastUserText(s.input_messages) && !outputText(s.output_messages) && !actsInside(s)) return walkChildren(s, ctx, depth);
    // A workflow wrapper recorded as an agent (the OpenAI Agents SDK's `Agent workflow` trace span): at the top,
    // with no input of its own and no model call of its own, only agents inside. The agents inside are the
    // top-level ones: the first one's input is the user's question, not a task the wrapper gave it.
    if (top && !ctx.inAgent && !lastUserText(s.input_messages) && !outputText(s.output_messages) && wrapsAgents(s)) return walkChildren(s, ctx, depth);
    let inner: Ctx;
    if (sub) {
      const task = taskOf(s);
      const from = byCaller ? { agent: caller, version: null } : { agent: ctx.agent, version: ctx.version };
      if (!handed) out.push(message('agent_handoff', head(s, from.agent, from.version), { from_agent: from.agent, to_agent: agent, text: task }));
      inner = { agent, version: ver, inAgent: true, from, seen: { text: task }, quiet: once(() => modelIn(s)) };
    } else {
      inner = { ...ctx, agent, version: ver, inAgent: true, quiet: once(() => modelIn(s)) };
    }
    // The user's own message of the turn (what the top-level agent was asked) comes first.
    if (!sub && top) emitUser(s, trailingUserText(s.input_messages), inner);
    const instructions = s.system_instructions.filter(Boolean).join('\n');
    if (own != null || s.request_model != null || instructions || s.tool_definitions) {
      out.push(message('agent_start', head(s, agent, ver), {
        model: s.request_model,
        system_instructions: instructions || null,
        tool_definitions: s.tool_definitions,
        status: s.status_code,
      }));
    }
    if (s.compaction_summary || (s.compaction_items_before ?? 0) > 0) {
      out.push(message('context_compacted', head(s, agent, ver), {
        compaction_summary: s.compaction_summary,
        compaction_items_before: s.compaction_items_before,
        compaction_items_after: s.compaction_items_after,
      }));
    }
    const before = assistants;
    const mark = out.length;
    walkChildren(s, inner, depth);
    flushDeferred();
    // An agent span usually mirrors its last model call's output: emit it only when nothing inside did,
    // or when none of this agent's own bubbles had text and its answer was not just shown (BeeAI's
    // `final_answer` tool, a supervisor whose model calls record no output).
    const ownText = out.slice(mark).some((m) => m.type === 'assistant_message' && m.agent_name === agent && m.assistant_message!.text);
    const answer = outputText(s.output_messages);
    // Its tokens and cost are those of its subtree, unless the model calls inside showed theirs (as steps).
    if (assistants === before) emitAssistant(s, inner, usageTotals(subtree(tree, s), tree));
    else if (!ownText && answer && answer !== lastAssistantText) emitAssistant(s, inner, 'none');
  };

  const visit = (s: ChatSpan, ctx: Ctx, depth: number, underAgent: boolean): void => {
    if (depth > MAX_DEPTH) return;
    const top = ctx.from === null;
    if (top) topLevel.push(s);
    const op = opOf(s);
    if (op === 'invoke_agent') return visitAgent(s, ctx, depth, top);
    const here: Ctx = ctx.inAgent ? ctx : { ...ctx, agent: ctx.agent ?? s.agent_name, version: ctx.agent != null ? ctx.version : s.agent_version };
    if (op === 'handoff') {
      flushDeferred();
      // The enclosing agent hands the conversation over (OpenAI Agents SDK): the agent taking over runs
      // next, beside this one, with the whole history; the handoff itself carries no text of its own.
      out.push(message('agent_handoff', head(s, here.agent, here.version), { from_agent: here.agent, to_agent: s.agent_name, text: null }));
      walkChildren(s, here, depth);
      return;
    }
    if (op === 'execute_tool') {
      // A tool that transfers to another agent (GenAI conventions, transfer.ts): the source agent hands the
      // conversation over (`pass_control`: no tool bubble, the target takes over with the whole history) or
      // hands it a task and gets the answer back (the tool call stays, the handoff carries the task). What
      // runs inside is the target's: its own agent span there is the same hop, not another handoff.
      const transfer = transferOf(s);
      if (transfer) {
        const from = s.agent_name ?? here.agent;
        const fromVersion = from === here.agent ? here.version : null;
        // The task: what the target's own span inside the tool was given, else what the tool's insides show, else its arguments.
        const target = transfer.passesControl ? undefined : subtree(tree, s).find((c) => c !== s && opOf(c) === 'invoke_agent' && (c.agent_name ?? c.agent_id) === transfer.target);
        const task = transfer.passesControl ? null : ((target && taskOf(target)) ?? taskOf(s) ?? s.tool_call_arguments);
        emitTool(s, here);
        out.push(message('agent_handoff', head(s, from, fromVersion), { from_agent: from, to_agent: transfer.target, text: task }));
        if (transfer.passesControl) {
          // The target runs after the tool, beside it or inside the source's span: that run is this hop.
          handedOver.set(transfer.target, from);
          walkChildren(s, { ...here, underTool: true }, depth);
        } else {
          walkChildren(s, { agent: transfer.target, version: null, inAgent: true, from: { agent: from, version: fromVersion }, seen: { text: task }, quiet: () => true, underTool: false }, depth);
        }
        return;
      }
      emitTool(s, here);
      // A tool that runs another agent without an agent span of its own (Claude Code's Agent tool names
      // the sub-agent on the tool span): what happens inside is that agent's, handed its task by this one.
      const runs = s.agent_name;
      if (runs && here.inAgent && runs !== here.agent && subtree(tree, s).some((c) => MODEL_OPS.has(opOf(c)))) {
        const task = taskOf(s);
        out.push(message('agent_handoff', head(s, here.agent, here.version), { from_agent: here.agent, to_agent: runs, text: task }));
        const inner: Ctx = { agent: runs, version: null, inAgent: true, from: { agent: here.agent, version: here.version }, seen: { text: task }, quiet: () => true, underTool: false };
        walkChildren(s, inner, depth);
        return;
      }
      walkChildren(s, { ...here, underTool: true }, depth);
      return;
    }
    const model = MODEL_OPS.has(op);
    // Inside a sub-agent the new input is its last user-role message (its history may repeat the user's question before it).
    const userText = here.from ? lastUserText(s.input_messages) : trailingUserText(s.input_messages);
    // A wrapper's input is shown once, as the turn's question; every model call's new user input is shown.
    if (model || here.from || !userShown) emitUser(s, userText, here);
    // A model call whose children are its tools / sub-agents (Google ADK nests them) spoke before they ran.
    if (model && !(tree.children.get(s.span_id) ?? []).some((c) => MODEL_OPS.has(opOf(c)))) {
      emitModelToolCalls(s, here, true);
      emitAssistant(s, here, null, true);
      emitModelToolCalls(s, here);
      walkChildren(s, here, depth);
      return;
    }
    const before = assistants;
    walkChildren(s, here, depth);
    if (model) {
      // Decision (docs/chat.md): a call repeating the answer just shown inside it is the same message.
      emitModelToolCalls(s, here, true);
      if (!(assistants > before && outputText(s.output_messages) === lastAssistantText)) emitAssistant(s, here, null);
      emitModelToolCalls(s, here);
      return;
    }
    // Wrappers answer only at the top of the walk (or right under an agent) when nothing inside did and
    // no model call of the agent (or turn) speaks: flat emitters (OpenLLMetry's LangChain callbacks
    // under one agent span) put every graph node beside the model calls.
    if (assistants === before && (((depth === 1 || underAgent) && !here.quiet()) || (s.status_code === 'ERROR' && !here.underTool))) emitAssistant(s, here, null);
  };

  const start: Ctx = { agent: null, version: null, inAgent: false, from: null, seen: { text: null }, quiet: once(() => modelIn(null)), underTool: false };
  let stopped = false;
  try {
    for (const r of tree.roots) visit(r, start, 1, false);
    flushDeferred();
  } catch (e) {
    if (e !== ENOUGH) throw e;
    stopped = true; // a user message is out (or none can be), so the fallback below does nothing; the swap still applies
  }

  if (!out.some((m) => m.type === 'user_message')) {
    const agents = topLevel.filter((s) => opOf(s) === 'invoke_agent');
    const others = topLevel.filter((s) => opOf(s) !== 'invoke_agent' && opOf(s) !== 'execute_tool');
    for (const group of [agents, others]) {
      const found = [...group].reverse().find((s) => lastUserText(s.input_messages));
      if (found) {
        out.unshift(message('user_message', {
          span_id: null, agent_name: 'User', agent_version: null, status_code: null,
          started_at: found.start_ns == null ? null : isoFromNs(found.start_ns),
        }, { text: lastUserText(found.input_messages)!, content_refs: [] }));
        break;
      }
    }
  }
  if (out[0]?.type === 'agent_start' && out[1]?.type === 'user_message') [out[0], out[1]] = [out[1], out[0]];
  return stopped ? { messages: out.slice(0, limit), complete: false } : { messages: out, complete: true };
}
