/**
 * LLM judges (issue 20 item 2): a prompt made from a turn, sent to an OpenAI-compatible
 * `/chat/completions`, answered as JSON `{"score": …, "explanation": "…"}`. Failed calls (network,
 * 5xx, 429, an answer that is not the asked JSON) are retried with backoff; every attempt is traced
 * as a `chat` span in the project `<project>-judge`, so a judge's calls are read like any agent's.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Judge } from '../../../shared/contract/scorers.js';
import type { TurnFacts } from '../../domain/evals/turn-facts.js';
import { exportRequest, type DemoSpan } from '../../demo/otlp.js';
import { computeCosts } from '../ingest/costs.js';

export type JudgeDef = z.output<typeof Judge>;

export const judgeProject = (projectId: string): string => `${projectId}-judge`;

const SYSTEM = (j: JudgeDef) =>
  `You are an evaluator. Read the conversation turn and answer ONLY with a JSON object: ` +
  (j.output === 'label'
    ? `{"label": one of ${JSON.stringify(j.labels ?? [])}, "explanation": "one or two sentences"}`
    : j.output === 'boolean'
      ? `{"score": true or false, "explanation": "one or two sentences"}`
      : `{"score": a number from 0 (bad) to 1 (good), "explanation": "one or two sentences"}`);

/** The judge's prompt for a turn: the template with the turn's texts put in. */
export function renderPrompt(template: string, f: TurnFacts): string {
  const tools = f.tool_calls.map((t) => `${t.name}(${t.arguments ?? ''})${t.error ? ` -> error: ${t.error}` : ''}`).join('\n');
  const transcript = [`User: ${f.question ?? ''}`, ...(tools ? [`Tool calls:\n${tools}`] : []), `Assistant: ${f.answer ?? ''}`].join('\n\n');
  const vars: Record<string, string> = { question: f.question ?? '', answer: f.answer ?? '', transcript, tools };
  return template.replace(/\{\{\s*(question|answer|transcript|tools)\s*\}\}/g, (_m, k: string) => vars[k] ?? '');
}

/** Rough tokens of a text (4 characters a token): for the estimate shown before a run. */
export const roughTokens = (text: string): number => Math.ceil(text.length / 4);

export function judgeCost(j: JudgeDef, input: number, output: number): number | null {
  if (j.price) return (input * j.price.input_per_mtok + output * j.price.output_per_mtok) / 1e6;
  return computeCosts({ input_tokens: input, output_tokens: output, cache_read_input_tokens: null, cache_creation_input_tokens: null }, j.model, j.model, null).total_cost_usd;
}

export interface Verdict {
  value: number | boolean | null;
  label: string | null;
  explanation: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  attempts: number;
}

/** The JSON object in a model's answer (code fences and text around it tolerated). */
function verdictOf(j: JudgeDef, content: string): Pick<Verdict, 'value' | 'label' | 'explanation'> {
  const m = /\{[\s\S]*\}/.exec(content);
  if (!m) throw new Error('the judge did not answer with a JSON object');
  const v = JSON.parse(m[0]) as Record<string, unknown>;
  const explanation = typeof v.explanation === 'string' ? v.explanation : null;
  if (j.output === 'label') {
    const label = v.label ?? v.score;
    if (typeof label !== 'string' || (j.labels && !j.labels.includes(label))) throw new Error(`the judge's label ${JSON.stringify(label)} is not one of ${JSON.stringify(j.labels ?? [])}`);
    return { value: null, label, explanation };
  }
  const s = v.score ?? v.value;
  if (j.output === 'boolean') {
    if (typeof s !== 'boolean') throw new Error(`the judge's score ${JSON.stringify(s)} is not a boolean`);
    return { value: s, label: null, explanation };
  }
  const n = typeof s === 'string' ? Number(s) : s;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`the judge's score ${JSON.stringify(s)} is not a number`);
  return { value: n, label: null, explanation };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Judges one turn: one call (and its retries), each traced. `trace` receives the OTLP request of
 * every attempt (the caller batches them into its judge project).
 */
export async function judgeTurn(
  j: JudgeDef,
  apiKey: string | null,
  f: TurnFacts,
  meta: { project_id: string; scorer_id: string },
  trace: (request: Record<string, unknown>) => void,
  signal?: AbortSignal,
): Promise<Verdict> {
  const messages = [{ role: 'system', content: SYSTEM(j) }, { role: 'user', content: renderPrompt(j.prompt, f) }];
  const url = `${j.base_url.replace(/\/+$/, '')}/chat/completions`;
  let last: Error | null = null;
  for (let attempt = 0; attempt <= j.retries; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, Math.min(4000, 200 * 2 ** (attempt - 1))));
    if (signal?.aborted) throw new Error('cancelled');
    const start = BigInt(Date.now()) * 1_000_000n;
    let content: string | null = null;
    let usage = { prompt_tokens: 0, completion_tokens: 0 };
    let responseModel: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model: j.model, messages, max_tokens: j.max_tokens, temperature: 0 }),
        signal: AbortSignal.any([AbortSignal.timeout(120_000), ...(signal ? [signal] : [])]),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
      const body = JSON.parse(text) as { model?: string; choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
      content = body.choices?.[0]?.message?.content ?? null;
      responseModel = body.model ?? null;
      usage = { prompt_tokens: body.usage?.prompt_tokens ?? 0, completion_tokens: body.usage?.completion_tokens ?? 0 };
      if (content == null) throw new Error(`${url} answered without choices[0].message.content`);
      const verdict = verdictOf(j, content);
      trace(judgeSpan(j, meta, f, messages, content, responseModel, usage, start, null));
      return { ...verdict, input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, cost_usd: judgeCost(j, usage.prompt_tokens, usage.completion_tokens), attempts: attempt + 1 };
    } catch (e) {
      last = e instanceof Error ? e : new Error(String(e));
      trace(judgeSpan(j, meta, f, messages, content, responseModel, usage, start, last.message));
    }
  }
  throw last ?? new Error('the judge failed');
}

function judgeSpan(
  j: JudgeDef,
  meta: { project_id: string; scorer_id: string },
  f: TurnFacts,
  messages: { role: string; content: string }[],
  content: string | null,
  responseModel: string | null,
  usage: { prompt_tokens: number; completion_tokens: number },
  start: bigint,
  error: string | null,
): Record<string, unknown> {
  const span: DemoSpan = {
    traceId: hex(16),
    spanId: hex(8),
    name: `chat ${j.model}`,
    kind: 3,
    startNs: start,
    endNs: BigInt(Date.now()) * 1_000_000n,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.agent.name': `judge ${meta.scorer_id}`,
      'gen_ai.request.model': j.model,
      'gen_ai.response.model': responseModel ?? undefined,
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'gen_ai.input.messages': JSON.stringify(messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))),
      'gen_ai.output.messages': content == null ? undefined : JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: 'stop' }]),
      'server.address': safeHost(j.base_url),
      'loupe.judge.scorer_id': meta.scorer_id,
      'loupe.judge.project_id': meta.project_id,
      'loupe.judge.trace_id': f.trace_id,
      ...(error ? { 'error.type': 'JudgeCallFailed' } : {}),
    },
    status: error ? { code: 2, message: error } : { code: 1 },
  };
  return exportRequest('loupe-judge', {}, [span], { scope: { name: 'loupe.evals' }, sdkResource: {} });
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
