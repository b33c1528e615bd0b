/**
 * Costs from the maintained price table of @pydantic/genai-prices (semantics §3), used only when
 * the span carries no cost of its own. Matched on response model, then request model. Unknown
 * model → all costs null (never 0).
 *
 * calcPrice costs ~40 µs a call (it matches the model against every provider's rules), so the
 * matched per-million-token prices are cached per (provider, model); a model with tiered prices
 * falls back to calcPrice for each span so tiers stay right.
 */
import { calcPrice, type ModelPrice } from '@pydantic/genai-prices';

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

type Flat = { input: number; output: number; cacheRead: number; cacheWrite: number };
const cache = new Map<string, Flat | 'tiered' | null>();

function flatPrices(mp: ModelPrice): Flat | 'tiered' {
  const n = (k: string, dflt: number): number | null => {
    const v = mp[k];
    return v === undefined ? dflt : typeof v === 'number' ? v : null;
  };
  const input = n('input_mtok', 0);
  const output = n('output_mtok', 0);
  const cacheRead = n('cache_read_mtok', input ?? 0);
  const cacheWrite = n('cache_write_mtok', input ?? 0);
  if (input === null || output === null || cacheRead === null || cacheWrite === null) return 'tiered';
  return { input, output, cacheRead, cacheWrite };
}

function lookup(model: string, provider: string | null): Flat | 'tiered' | null {
  const key = `${provider ?? ''}\u0000${model}`;
  let hit = cache.get(key);
  if (hit === undefined) {
    let r = null;
    try {
      r = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, provider ? { providerId: provider } : undefined);
      // A provider name the table does not know (e.g. 'azure.ai.openai') must not hide a known model.
      if (!r && provider) r = calcPrice({ input_tokens: 0, output_tokens: 0 }, model);
    } catch {
      r = null;
    }
    hit = r ? flatPrices(r.model_price) : null;
    cache.set(key, hit);
  }
  return hit;
}

const round = (x: number) => Math.round(x * 1e12) / 1e12;

/** Costs of one span's usage, or NO_COSTS when no model is priced or the span has no usage. */
export function computeCosts(u: Usage, responseModel: string | null, requestModel: string | null, provider: string | null): Costs {
  if (u.input_tokens === null && u.output_tokens === null) return NO_COSTS;
  for (const model of [responseModel, requestModel]) {
    if (!model) continue;
    const p = lookup(model, provider);
    if (p === null) continue;
    const input = u.input_tokens ?? 0;
    const output = u.output_tokens ?? 0;
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    if (p === 'tiered') {
      const r = calcPrice({ input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_write_tokens: write }, model, provider ? { providerId: provider } : undefined)
        ?? calcPrice({ input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_write_tokens: write }, model);
      if (!r) continue;
      return { input_cost_usd: r.input_price, output_cost_usd: r.output_price, cache_read_cost_usd: null, cache_creation_cost_usd: null, total_cost_usd: r.total_price };
    }
    const readCost = (read * p.cacheRead) / 1e6;
    const writeCost = (write * p.cacheWrite) / 1e6;
    const inputCost = (Math.max(0, input - read - write) * p.input) / 1e6 + readCost + writeCost;
    const outputCost = (output * p.output) / 1e6;
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
