/**
 * Chat completions from a checkpoint (semantics §9.7): model references, the chat-completion
 * object with per-token logprobs, server-sent chunks for `stream: true` (each delta carries the
 * logprobs of its own tokens), top_p, stop, tools (tool_choice "required" or a named function
 * constrains the output to a call), a prompt beyond the context window answered 400 as vLLM does,
 * and a `chat` span per completion in the model's project. Errors leave in OpenAI's shape (contract
 * errorShape), so OpenAI clients show Loupe's message.
 */
import { ServiceError, badRequest, errorMessage, notFound } from '../../../shared/errors.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, ModelRow } from '../../store/ports.js';
import type { ChatMessage, CompletionRequest, GeneratedChoice, TokenLogprob, ToolConstraint } from '../../training/engine.js';
import { BASE_MODELS } from '../../training/config.js';
import { encodeChat } from '../../training/tokenizer.js';
import { checkpointDir, newId, runtimeOf } from './util.js';
import { newSpanRef, recordCompletion, recordingOn } from './record.js';
import { parseToolCalls, toolMode, type ToolCall, type ToolMode } from './tools.js';
import { ToolCallConstraint } from '../../training/json-constraint.js';
import { fingerprint, modelHeaders } from './substitution.js';
import type { CallOptions } from '../handler-types.js';

type Input = OpParsedInput<'training.chatCompletions'>;
type SpanRef = { trace_id: string; span_id: string };

const modelNotFound = (msg: string): ServiceError => {
  const e = notFound(msg);
  e.code = 'model_not_found';
  e.param = 'model';
  return e;
};

/** `<x>-artifact:///<entity>/<project>/<name>[:step<N>]`, `<entity>/<project>/<name>[:step<N>]` or `<model id>[:step<N>]`. */
export async function resolveModelRef(ctx: ServiceContext, ref: string): Promise<{ model: ModelRow; checkpoint: CheckpointRow }> {
  const repo = ctx.app.training;
  const bare = ref.replace(/^[^/]*-artifact:\/\/\//, '');
  const sm = /^(.*):step(\d+)$/.exec(bare);
  const target = sm ? sm[1]! : bare;
  const parts = target.split('/');
  const model =
    parts.length >= 3 ? await repo.findModel(parts[0]!, parts[1]!, parts.slice(2).join('/')) : parts.length === 1 ? await repo.getModel(target) : null;
  if (!model) throw modelNotFound(`The model \`${ref}\` does not exist`);
  const checkpoint = sm ? await repo.checkpointByStep(model.id, Number(sm[2])) : await repo.latestCheckpoint(model.id);
  if (!checkpoint) throw modelNotFound(sm ? `Checkpoint step ${sm[2]} not found for model ${ref}` : `Model ${ref} has no checkpoint`);
  return { model, checkpoint };
}

interface Message {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: ToolCall[];
}

interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  /** `loupe` names the span the completion is recorded as (absent when recording is off). */
  choices: { index: number; message: Message; logprobs: { content: TokenLogprob[]; refusal: null }; finish_reason: string; loupe?: SpanRef }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const stops = (s: Input['stop']): string[] | undefined => (s == null ? undefined : typeof s === 'string' ? [s] : s);

/**
 * The completion budget, as vLLM does it: prompt + max_tokens must fit the context window, else 400;
 * without max_tokens the rest of the window is the budget.
 */
function budget(input: Input, promptTokens: number, context: number): number {
  const asked = input.max_completion_tokens ?? input.max_tokens ?? null;
  if (promptTokens >= context || (asked !== null && promptTokens + asked > context)) {
    const e = badRequest(
      `This model's maximum context length is ${context} tokens. However, you requested ${promptTokens + (asked ?? 0)} tokens ` +
        `(${promptTokens} in the messages, ${asked ?? 0} in the completion). Please reduce the length of the messages or completion.`,
    );
    e.code = 'context_length_exceeded';
    e.param = 'messages';
    throw e;
  }
  return asked ?? context - promptTokens;
}

/** A generated choice as the API returns it (tool calls parsed out of the text when tools are in play). */
function toMessage(c: GeneratedChoice, mode: ToolMode): { message: Message; finish_reason: string } {
  if (mode.kind === 'none' || (mode.kind === 'constrained' && c.finish_reason === 'length')) {
    return { message: { role: 'assistant', content: c.text, refusal: null }, finish_reason: c.finish_reason };
  }
  const names = mode.kind === 'auto' ? mode.names : mode.constraint.names;
  const { content, tool_calls } = parseToolCalls(c.text, names);
  if (tool_calls.length === 0) return { message: { role: 'assistant', content: c.text, refusal: null }, finish_reason: c.finish_reason };
  return { message: { role: 'assistant', content, refusal: null, tool_calls }, finish_reason: 'tool_calls' };
}

export async function chatCompletions(input: Input, ctx: ServiceContext, call: CallOptions = {}): Promise<Completion | AsyncIterable<Chunk>> {
  const rt = runtimeOf(ctx);
  const { model, checkpoint } = await resolveModelRef(ctx, input.model);
  const mode = toolMode(input);
  const recording = await recordingOn(ctx);
  const ref = recording ? newSpanRef() : undefined;
  const started = process.hrtime.bigint();
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const runtime = model.runtime_model ?? model.base_model;
  for (const [k, v] of Object.entries(modelHeaders(model))) call.header?.(k, v);
  const base = { id: `chatcmpl-${newId()}`, created: Math.floor(Date.now() / 1000), model: input.model, system_fingerprint: fingerprint(model, checkpoint.step) };
  const messages = input.messages.map((m) => ({ ...m, content: typeof m.content === 'string' || m.content == null ? (m.content ?? null) : m.content })) as ChatMessage[];
  const promptTokens = model.backend ? 0 : encodeChat(messages, { addGenerationPrompt: true }).tokens.length;

  // The completion's span is stored before the answer leaves, so a client reading traces right
  // after sees it (recording errors are logged, never fail the completion).
  const finish = async (choices: GeneratedChoice[], usage?: Completion['usage']): Promise<Completion> => {
    const completion: Completion = {
      ...base,
      object: 'chat.completion',
      choices: choices.map((c, index) => ({ index, ...toMessage(c, mode), logprobs: { content: c.logprobs, refusal: null }, ...(ref ? { loupe: ref } : {}) })),
      usage: usage ?? {
        prompt_tokens: promptTokens,
        completion_tokens: choices.reduce((a, c) => a + c.token_ids.length, 0),
        total_tokens: promptTokens + choices.reduce((a, c) => a + c.token_ids.length, 0),
      },
    };
    const endNs = startNs + (process.hrtime.bigint() - started);
    if (ref) await recordCompletion(ctx, ref, model, checkpoint, input, completion, startNs, endNs);
    return completion;
  };

  if (model.backend) {
    // Forwarded to the backend by name and step (the remote model has the same entity/project/name).
    const remoteRef = `${model.entity}/${model.project}/${model.name}:step${checkpoint.step}`;
    const r = await rt.remote.call<Completion>(model.backend, 'POST', '/v1/chat/completions', { ...input, model: remoteRef, stream: false });
    // The remote's own span names (its choices' `loupe`) are replaced by this server's: the span here is the one recorded.
    const choicesHere = r.choices.map(({ loupe: _remote, ...c }) => (ref ? { ...c, loupe: ref } : c));
    const done: Completion = { ...r, ...base, object: 'chat.completion', choices: choicesHere };
    if (ref) await recordCompletion(ctx, ref, model, checkpoint, input, done, startNs, startNs + (process.hrtime.bigint() - started));
    return input.stream ? chunksOf(done) : done;
  }

  const context = BASE_MODELS[runtime]?.contextLength;
  if (context === undefined) throw new ServiceError(500, `model ${model.id} runs on an unknown base model "${runtime}"`);
  const maxTokens = budget(input, promptTokens, context);
  if (mode.kind === 'constrained') leastForToolCall(mode.constraint, maxTokens, input.tool_choice === 'required');
  const req: CompletionRequest = {
    checkpointDir: checkpointDir(ctx.dataDir, model.id, checkpoint.step),
    messages,
    temperature: input.temperature ?? undefined,
    topP: input.top_p ?? undefined,
    maxTokens,
    n: input.n ?? 1,
    stop: stops(input.stop),
    seed: input.seed ?? undefined,
    topLogprobs: input.logprobs ? (input.top_logprobs ?? 0) : 0,
    tools: mode.kind === 'constrained' ? mode.constraint : undefined,
  };
  if (!input.stream) return finish(await rt.engine.complete(req));
  return streamCompletion(base, input.n ?? 1, mode, (onToken) => rt.engine.complete({ ...req, onToken }), finish, includeUsage(input));
}

/**
 * A constrained tool call needs room for its shortest valid form (`{"name":"<f>","arguments":{…}}`
 * with every required field at its shortest value, and the end token); a smaller budget is the
 * caller's error (400 naming max_tokens, issue 22.13), where sampling would otherwise find no allowed
 * token and fail the request with a 500.
 */
function leastForToolCall(tools: ToolConstraint, maxTokens: number, required: boolean): void {
  const least = new ToolCallConstraint(tools.names, tools.parameters).cost();
  if (maxTokens >= least) return;
  const e = badRequest(
    `max_tokens ${maxTokens} cannot hold a tool call: tool_choice ${required ? '"required"' : 'naming a function'} needs at least ${least} tokens here (the shortest call whose arguments hold every required field, and the end token; the built-in model writes one byte per token)`,
  );
  e.param = 'max_tokens';
  e.code = 'max_tokens_too_small';
  throw e;
}

const includeUsage = (input: Input): boolean => {
  const so = (input as { stream_options?: { include_usage?: boolean } }).stream_options;
  return so?.include_usage === true;
};

type Base = { id: string; created: number; model: string; system_fingerprint: string };
type Chunk = Base & { object: 'chat.completion.chunk'; choices: unknown[]; usage?: unknown };
const chunk = (base: Base, choices: unknown[], extra: { usage?: unknown } = {}): Chunk => ({ ...base, object: 'chat.completion.chunk', choices, ...extra });
const lp = (content: TokenLogprob[]) => ({ content, refusal: null });
/** A streamed choice names its recorded span on its last chunk (the one with finish_reason), as a non-streamed choice does. */
const link = (c: { loupe?: SpanRef }) => (c.loupe ? { loupe: c.loupe } : {});

/** A finished completion as chunks (forwarded completions). */
async function* chunksOf(c: Completion): AsyncGenerator<Chunk> {
  for (const ch of c.choices) {
    yield chunk(c, [{ index: ch.index, delta: { role: 'assistant', content: ch.message.content, ...(ch.message.tool_calls ? { tool_calls: indexed(ch.message.tool_calls) } : {}) }, logprobs: ch.logprobs, finish_reason: null }]);
    yield chunk(c, [{ index: ch.index, delta: {}, logprobs: null, finish_reason: ch.finish_reason, ...link(ch) }]);
  }
}

const indexed = (calls: ToolCall[]) => calls.map((c, i) => ({ index: i, ...c }));

/**
 * Tokens are sent as the worker samples them: each content delta carries the logprobs of exactly
 * its tokens, so clients that accumulate `logprobs.content` across chunks get every token. With
 * tools in play a choice is held back while it may be a tool call (constrained: always; auto: when
 * it starts with "{") and sent whole, as a tool_calls delta, when it ends.
 */
async function* streamCompletion(
  base: Base,
  n: number,
  mode: ToolMode,
  run: (onToken: NonNullable<CompletionRequest['onToken']>) => Promise<GeneratedChoice[]>,
  finish: (choices: GeneratedChoice[]) => Promise<Completion>,
  usage: boolean,
): AsyncGenerator<Chunk> {
  const pending: Chunk[] = [];
  const held = Array.from({ length: n }, () => ({ hold: mode.kind === 'constrained', decided: mode.kind !== 'auto', seen: false }));
  let wake: (() => void) | null = null;
  let settled = false;
  let result: GeneratedChoice[] | null = null;
  let failure = null as Error | null;
  void run((index, text, logprobs) => {
    const h = held[index]!;
    if (!h.decided && text) {
      h.decided = true;
      h.hold = text.startsWith('{');
    }
    if (h.hold || !h.decided) return;
    h.seen = true;
    pending.push(chunk(base, [{ index, delta: { content: text }, logprobs: lp(logprobs), finish_reason: null }]));
    wake?.();
  }).then(
    (r) => ((result = r), (settled = true), wake?.()),
    (e: unknown) => ((failure = e instanceof Error ? e : new Error(e == null ? 'completion failed' : errorMessage(e))), (settled = true), wake?.()),
  );
  for (let i = 0; i < n; i++) yield chunk(base, [{ index: i, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  for (;;) {
    while (pending.length) yield pending.shift()!;
    if (settled) break;
    await new Promise<void>((r) => (wake = r));
    wake = null;
  }
  if (failure) throw failure;
  const done = await finish(result!);
  for (const c of done.choices) {
    const h = held[c.index]!;
    if (h.hold || !h.decided) {
      // Held back: the whole choice in one delta (content or tool calls) with all its logprobs.
      const delta = c.message.tool_calls ? { content: c.message.content, tool_calls: indexed(c.message.tool_calls) } : { content: c.message.content };
      yield chunk(base, [{ index: c.index, delta, logprobs: c.logprobs, finish_reason: null }]);
    }
    yield chunk(base, [{ index: c.index, delta: {}, logprobs: null, finish_reason: c.finish_reason, ...link(c) }]);
  }
  if (usage) yield chunk(base, [], { usage: done.usage });
}
