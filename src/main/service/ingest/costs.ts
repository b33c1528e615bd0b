/**
 * Costs from the maintained price table of @pydantic/genai-prices (semantics §3), used only when
 * the span carries no cost of its own. Matched on response model, then request model. Unknown
 * model → all costs null (never 0).
 *
 * calcPrice costs ~40 µs a call (it matches the model against every provider's rules), so the
 * matched per-million-token prices are cached per (provider, model) and applied here with the
 * library's own rules (tiers chosen by the request's total input tokens). Extra per-request fees
 * of a few models (web searches, requests_kcount) are not usage tokens and are left out.
 */
import { calcPrice } from '@pydantic/genai-prices';

export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

export interface Costs {
  input_cost_usd: number | null;
  output_cost_usd: number | null;
  cache_read_cost_usd: number | null;
  cache_creation_cost_usd: number | null;
  total_cost_usd: number | null;
}

export const NO_COSTS: Readonly<Costs> = Object.freeze({
  input_cost_usd: null, output_cost_usd: null, cache_read_cost_usd: null, cache_creation_cost_usd: null, total_cost_usd: null,
});

/** A per-million-token price: flat, or tiered on the request's total input tokens (as genai-prices does). */
type Price = number | { base: number; tiers: { start: number; price: number }[] };
type Prices = { input: Price; output: Price; cacheRead: Price; cacheWrite: Price };
const cache = new Map<string, Prices | null>();

function asPrice(v: unknown, dflt: Price): Price {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'base' in v && 'tiers' in v) {
    const t = v as { base: number; tiers: { start: number; price: number }[] };
    return { base: t.base, tiers: [...t.tiers].sort((a, b) => a.start - b.start) };
  }
  return dflt;
}

/** Price per token at this request's size: the last tier whose start the input total exceeds. */
function perToken(p: Price, totalInput: number): number {
  if (typeof p === 'number') return p / 1e6;
  let price = p.base;
  for (const t of p.tiers) if (totalInput > t.start) price = t.price;
  return price / 1e6;
}

function lookup(model: string, provider: string | null): Prices | null {
  const key = `${provider ?? ''}\u0000${model}`;
  let hit = cache.get(key);
  if (hit === undefined) {
    let r: ReturnType<typeof calcPrice>;
    try {
      r = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, provider ? { providerId: provider } : undefined);
      // A provider name the table does not know (e.g. 'azure.ai.openai') must not hide a known model.
      if (!r && provider) r = calcPrice({ input_tokens: 0, output_tokens: 0 }, model);
    } catch {
      r = null;
    }
    if (r) {
      const mp = r.model_price;
      const input = asPrice(mp.input_mtok, 0);
      hit = { input, output: asPrice(mp.output_mtok, 0), cacheRead: asPrice(mp.cache_read_mtok, input), cacheWrite: asPrice(mp.cache_write_mtok, input) };
    } else hit = null;
    cache.set(key, hit);
  }
  return hit;
}

const round = (x: number) => Math.round(x * 1e12) / 1e12;

/**
 * The model id inside a provider's resource path (issue 18): Vertex AI names a model
 * `projects/<p>/locations/<l>/publishers/google/models/gemini-2.0-flash-001` (and `…/endpoints/…`
 * tuned models are unpriceable anyway); the price table knows `gemini-2.0-flash-001`. A plain name is
 * returned as it is.
 */
export function modelIdOf(model: string): string {
  const m = /(?:^|\/)models\/([^/]+)$/.exec(model.trim());
  return m ? m[1]! : model;
}

/** Costs of one span's usage, or NO_COSTS when no model is priced or the span has no usage. */
export function computeCosts(u: Usage, responseModel: string | null, requestModel: string | null, provider: string | null): Costs {
  if (u.input_tokens === null && u.output_tokens === null) return NO_COSTS;
  for (const model of [responseModel, requestModel]) {
    if (!model) continue;
    const p = lookup(modelIdOf(model), provider);
    if (p === null) continue;
    const input = u.input_tokens ?? 0;
    const output = u.output_tokens ?? 0;
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    const readCost = read * perToken(p.cacheRead, input);
    const writeCost = write * perToken(p.cacheWrite, input);
    const inputCost = Math.max(0, input - read - write) * perToken(p.input, input) + readCost + writeCost;
    const outputCost = output * perToken(p.output, input);
    return {
      input_cost_usd: round(inputCost),
      output_cost_usd: round(outputCost),
      cache_read_cost_usd: round(readCost),
      cache_creation_cost_usd: round(writeCost),
      total_cost_usd: round(inputCost + outputCost),
    };
  }
  return NO_COSTS;
}
