/**
 * Sending one model call of a replay: to an OpenAI-compatible endpoint over HTTP
 * (`<base_url>/chat/completions`), or to a Loupe checkpoint through the training service's own
 * chat completions in this process (the same code that answers /v1/chat/completions).
 */
import { contract } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { OpenAiMessage, OpenAiToolCall } from './openai-messages.js';

export type ResolvedTarget =
  | { kind: 'endpoint'; base_url: string; model: string; api_key: string | null }
  | { kind: 'checkpoint'; model_id: string; step: number; model: string };

export interface CallRequest {
  messages: OpenAiMessage[];
  tools: Record<string, unknown>[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  stop?: string[];
}

export interface CallAnswer {
  content: string | null;
  tool_calls: OpenAiToolCall[];
  finish_reason: string;
  input_tokens: number;
  output_tokens: number;
  ms: number;
}

/** Thrown for an answer the replay cannot use; `retryable` for 429/5xx/network errors. */
export class TargetError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

const CALL_TIMEOUT_MS = 120_000;

function bodyOf(model: string, r: CallRequest): Record<string, unknown> {
  return {
    model,
    messages: r.messages,
    ...(r.tools.length ? { tools: r.tools } : {}),
    ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
    ...(r.top_p !== undefined ? { top_p: r.top_p } : {}),
    ...(r.max_tokens !== undefined ? { max_tokens: r.max_tokens } : {}),
    ...(r.seed !== undefined ? { seed: r.seed } : {}),
    ...(r.stop?.length ? { stop: r.stop } : {}),
  };
}

interface CompletionLike {
  choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

function answerOf(c: CompletionLike, ms: number, where: string): CallAnswer {
  const choice = c.choices?.[0];
  if (!choice?.message) throw new TargetError(`${where} answered without choices[0].message`, false);
  const calls = Array.isArray(choice.message.tool_calls) ? (choice.message.tool_calls as OpenAiToolCall[]) : [];
  return {
    content: typeof choice.message.content === 'string' ? choice.message.content : null,
    tool_calls: calls.filter((t) => t && t.function && typeof t.function.name === 'string').map((t, i) => ({ id: t.id || `call_${i}`, type: 'function', function: { name: t.function.name, arguments: typeof t.function.arguments === 'string' ? t.function.arguments : JSON.stringify(t.function.arguments ?? {}) } })),
    finish_reason: choice.finish_reason ?? 'stop',
    input_tokens: c.usage?.prompt_tokens ?? 0,
    output_tokens: c.usage?.completion_tokens ?? 0,
    ms,
  };
}

async function callEndpoint(t: Extract<ResolvedTarget, { kind: 'endpoint' }>, r: CallRequest, signal: AbortSignal): Promise<CallAnswer> {
  const url = `${t.base_url.replace(/\/+$/, '')}/chat/completions`;
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(t.api_key ? { authorization: `Bearer ${t.api_key}` } : {}) },
      body: JSON.stringify(bodyOf(t.model, r)),
      signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new TargetError(`${url}: ${(err as Error).message}`, true);
  }
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  if (!res.ok) {
    const after = Number(res.headers.get('retry-after'));
    throw new TargetError(`${url} answered ${res.status}: ${text.slice(0, 300)}`, res.status === 429 || res.status >= 500, Number.isFinite(after) && after > 0 ? after * 1000 : null);
  }
  let json: CompletionLike;
  try {
    json = JSON.parse(text) as CompletionLike;
  } catch {
    throw new TargetError(`${url} answered 200 with a body that is not JSON: ${text.slice(0, 200)}`, false);
  }
  return answerOf(json, ms, url);
}

async function callCheckpoint(ctx: ServiceContext, t: Extract<ResolvedTarget, { kind: 'checkpoint' }>, r: CallRequest): Promise<CallAnswer> {
  // Loaded on demand: the training service pulls in the trainer.
  const { chatCompletions } = await import('../training/inference.js');
  const input = contract['training.chatCompletions'].input.parse(bodyOf(`${t.model_id}:step${t.step}`, r));
  const started = performance.now();
  const out = await chatCompletions(input, ctx);
  if (Symbol.asyncIterator in (out as object)) throw new TargetError('the checkpoint answered a stream', false);
  return answerOf(out as CompletionLike, Math.round(performance.now() - started), `checkpoint ${t.model}`);
}

/** One call with up to 3 retries of a retryable failure (backing off, or as Retry-After says). */
export async function callModel(ctx: ServiceContext, t: ResolvedTarget, r: CallRequest, signal: AbortSignal): Promise<CallAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return t.kind === 'endpoint' ? await callEndpoint(t, r, signal) : await callCheckpoint(ctx, t, r);
    } catch (err) {
      if (!(err instanceof TargetError) || !err.retryable || attempt >= 3 || signal.aborted) throw err;
      const wait = Math.min(err.retryAfterMs ?? 500 * 2 ** attempt, 30_000);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
