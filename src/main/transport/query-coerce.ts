/**
 * Query strings carry only text. For GET operations the contract's schemas say which keys are
 * numbers or booleans, so the router converts `?limit=20` to 20 before validation — the same as
 * FastAPI does for query parameters. A value that does not convert is passed through unchanged and
 * zod's 422 names it.
 */
import type { z } from 'zod';

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; options?: z.ZodType[] };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The base kind of a field schema after unwrapping optional/default/nullable wrappers. */
function baseKinds(schema: z.ZodType, depth = 0): string[] {
  const def = defOf(schema);
  if (depth > 8) return [def.type];
  if (def.innerType && ['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) {
    return baseKinds(def.innerType, depth + 1);
  }
  if (def.type === 'union' && def.options) return def.options.flatMap((o) => baseKinds(o, depth + 1));
  return [def.type];
}

export function coerceQuery(input: z.ZodType, query: Record<string, unknown>): Record<string, unknown> {
  const shape = defOf(input).shape ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    // Own keys only: a query key named `toString` or `hasOwnProperty` is an unknown key (a 422), not Object.prototype's.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    out[key] = field && typeof raw === 'string' ? coerceValue(baseKinds(field), raw) : raw;
  }
  return out;
}

function coerceValue(kinds: string[], raw: string): unknown {
  if (kinds.includes('string')) return raw;
  if ((kinds.includes('number') || kinds.includes('int') || kinds.includes('bigint')) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (kinds.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (kinds.includes('null') && raw === 'null') return null;
  return raw;
}
