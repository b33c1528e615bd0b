/**
 * Chat completions from a checkpoint (semantics §9.7): model references, the chat-completion
 * object with per-token logprobs, server-sent chunks for `stream: true`, and a `chat` span per
 * completion in the model's project.
 */
import { notFound } from '../../../shared/errors.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, ModelRow } from '../../store/ports.js';
import type { ChatMessage, GeneratedChoice, TokenLogprob } from '../../training/engine.js';
import { encodeChat } from '../../training/tokenizer.js';
import { checkpointDir, newId, runtimeOf } from './util.js';
import { recordCompletion, recordingOn } from './record.js';

type Input = OpParsedInput<'training.chatCompletions'>;

/** `<x>-artifact:///<entity>/<project>/<name>[:step<N>]`, `<entity>/<project>/<name>[:step<N>]` or `<model id>[:step<N>]`. */
export async function resolveModelRef(ctx: ServiceContext, ref: string): Promise<{ model: ModelRow; checkpoint: CheckpointRow }> {
  const repo = ctx.app.training;
  const bare = ref.replace(/^[^/]*-artifact:\/\/\//, '');
  const sm = /^(.*):step(\d+)$/.exec(bare);
  const target = sm ? sm[1]! : bare;
  const parts = target.split('/');
  const model =
    parts.length >= 3 ? await repo.findModel(parts[0]!, parts[1]!, parts.slice(2).join('/')) : parts.length === 1 ? await repo.getModel(target) : null;
  if (!model) throw notFound(`Model not found: ${ref}`);
  const checkpoint = sm ? await repo.checkpointByStep(model.id, Number(sm[2])) : await repo.latestCheckpoint(model.id);
  if (!checkpoint) throw notFound(sm ? `Checkpoint step ${sm[2]} not found for model ${ref}` : `Model ${ref} has no checkpoint`);
  return { model, checkpoint };
}

interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: { index: number; message: { role: 'assistant'; content: string; refusal: null }; logprobs: { content: TokenLogprob[]; refusal: null }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const stops = (s: Input['stop']): string[] | undefined => (s == null ? undefined : typeof s === 'string' ? [s] : s);

export async function chatCompletions(input: Input, ctx: ServiceContext): Promise<Completion | AsyncIterable<Chunk>> {
  const rt = runtimeOf(ctx);
  const { model, checkpoint } = await resolveModelRef(ctx, input.model);
  const recording = await recordingOn(ctx);
  const started = process.hrtime.bigint();
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const base = { id: `chatcmpl-${newId()}`, created: Math.floor(Date.now() / 1000), model: input.model, system_fingerprint: `loupe-step${checkpoint.step}` };
  const messages = input.messages.map((m) => ({ ...m, content: typeof m.content === 'string' || m.content == null ? (m.content ?? null) : m.content })) as ChatMessage[];
  const promptTokens = model.backend ? 0 : encodeChat(messages, { addGenerationPrompt: true }).tokens.length;

  const finish = (choices: GeneratedChoice[], usage?: Completion['usage']): Completion => {
    const completion: Completion = {
      ...base,
      object: 'chat.completion',
      choices: choices.map((c, index) => ({
        index,
        message: { role: 'assistant', content: c.text, refusal: null },
        logprobs: { content: c.logprobs, refusal: null },
        finish_reason: c.finish_reason,
      })),
      usage: usage ?? {
        prompt_tokens: promptTokens,
        completion_tokens: choices.reduce((a, c) => a + c.token_ids.length, 0),
        total_tokens: promptTokens + choices.reduce((a, c) => a + c.token_ids.length, 0),
      },
    };
    const endNs = startNs + (process.hrtime.bigint() - started);
    if (recording) void recordCompletion(ctx, model, checkpoint, input, completion, startNs, endNs);
    return completion;
  };

  if (model.backend) {
    // Forwarded to the backend by name and step (the remote model has the same entity/project/name).
    const remoteRef = `${model.entity}/${model.project}/${model.name}:step${checkpoint.step}`;
    const r = await rt.remote.call<Completion>(model.backend, 'POST', '/v1/chat/completions', { ...input, model: remoteRef, stream: false });
    const done = finish(
      r.choices.map((c) => ({ text: c.message.content, token_ids: c.logprobs?.content?.map(() => 0) ?? [], logprobs: c.logprobs?.content ?? [], finish_reason: c.finish_reason as 'stop' })),
      r.usage,
    );
    return input.stream ? chunksOf(done) : done;
  }

  const req = {
    checkpointDir: checkpointDir(ctx.dataDir, model.id, checkpoint.step),
    messages,
    temperature: input.temperature ?? undefined,
    maxTokens: input.max_completion_tokens ?? input.max_tokens ?? undefined,
    n: input.n ?? 1,
    stop: stops(input.stop),
    seed: input.seed ?? undefined,
    // Passed through to the worker's sampler (not part of the TrainerEngine interface's type).
    topLogprobs: input.logprobs ? (input.top_logprobs ?? 0) : 0,
  };
  if (!input.stream) return finish(await rt.engine.complete(req));
  return streamCompletion(base, input.n ?? 1, (onToken) => rt.engine.complete({ ...req, onToken }), finish, includeUsage(input));
}

const includeUsage = (input: Input): boolean => {
  const so = (input as { stream_options?: { include_usage?: boolean } }).stream_options;
  return so?.include_usage === true;
};

type Base = { id: string; created: number; model: string; system_fingerprint: string };
type Chunk = Base & { object: 'chat.completion.chunk'; choices: unknown[]; usage?: unknown };
const chunk = (base: Base, choices: unknown[], extra: { usage?: unknown } = {}): Chunk => ({ ...base, object: 'chat.completion.chunk', choices, ...extra });

/** A finished completion as chunks (forwarded completions). */
async function* chunksOf(c: Completion): AsyncGenerator<Chunk> {
  for (const ch of c.choices) {
    yield chunk(c, [{ index: ch.index, delta: { role: 'assistant', content: ch.message.content }, logprobs: ch.logprobs, finish_reason: null }]);
    yield chunk(c, [{ index: ch.index, delta: {}, logprobs: null, finish_reason: ch.finish_reason }]);
  }
}

/**
 * Tokens are sent as the worker samples them (content deltas). The engine reports a token's
 * logprob only with the finished choice, so each choice's logprobs travel in its last chunk,
 * beside finish_reason; clients that accumulate `logprobs.content` across chunks get them all.
 */
async function* streamCompletion(
  base: Base,
  n: number,
  run: (onToken: (index: number, text: string) => void) => Promise<GeneratedChoice[]>,
  finish: (choices: GeneratedChoice[]) => Completion,
  usage: boolean,
): AsyncGenerator<Chunk> {
  const pending: Chunk[] = [];
  let wake: (() => void) | null = null;
  let settled = false;
  let result: GeneratedChoice[] | null = null;
  let failure: unknown = null;
  void run((index, text) => {
    pending.push(chunk(base, [{ index, delta: { content: text }, logprobs: null, finish_reason: null }]));
    wake?.();
  }).then(
    (r) => ((result = r), (settled = true), wake?.()),
    (e: unknown) => ((failure = e ?? new Error('completion failed')), (settled = true), wake?.()),
  );
  for (let i = 0; i < n; i++) yield chunk(base, [{ index: i, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  for (;;) {
    while (pending.length) yield pending.shift()!;
    if (settled) break;
    await new Promise<void>((r) => (wake = r));
    wake = null;
  }
  if (failure) throw failure;
  const done = finish(result!);
  for (const c of done.choices) yield chunk(base, [{ index: c.index, delta: {}, logprobs: c.logprobs, finish_reason: c.finish_reason }]);
  if (usage) yield chunk(base, [], { usage: done.usage });
}
