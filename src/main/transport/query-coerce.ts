/**
 * Query strings carry only text. For GET operations the contract's schemas say which keys are
 * numbers or booleans, so the router converts `?limit=20` to 20 before validation — the same as
 * FastAPI does for query parameters. A value that does not convert is passed through unchanged and
 * zod's 422 names it.
 *
 * The types are read from the schema's JSON Schema (zod's public `z.toJSONSchema`, the same the
 * OpenAPI document is made of), computed once per operation.
 */
import { z } from 'zod';

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}

/** The JSON types a value of this schema may have ('integer', 'number', 'boolean', 'string', 'null', …). */
function kindsOf(s: JsonSchema, depth = 0): string[] {
  if (depth > 8) return [];
  const out: string[] = [];
  if (typeof s.type === 'string') out.push(s.type);
  else if (Array.isArray(s.type)) out.push(...s.type);
  for (const v of [...(s.enum ?? []), ...('const' in s ? [s.const] : [])]) out.push(v === null ? 'null' : typeof v);
  for (const sub of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) out.push(...kindsOf(sub, depth + 1));
  return out;
}

const fieldKinds = new WeakMap<z.ZodType, Map<string, string[]>>();

function kindsByField(input: z.ZodType): Map<string, string[]> {
  let m = fieldKinds.get(input);
  if (!m) {
    const json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    m = new Map(Object.entries(json.properties ?? {}).map(([k, s]) => [k, kindsOf(s)]));
    fieldKinds.set(input, m);
  }
  return m;
}

export function coerceQuery(input: z.ZodType, query: Record<string, unknown>): Record<string, unknown> {
  const kinds = kindsByField(input);
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    // A Map, not an object: a query key named `toString` or `__proto__` is an unknown key (a 422), never Object.prototype's.
    const k = kinds.get(key);
    out[key] = k && typeof raw === 'string' ? coerceValue(k, raw) : raw;
  }
  return out;
}

function coerceValue(kinds: string[], raw: string): unknown {
  if (kinds.includes('string')) return raw;
  if ((kinds.includes('number') || kinds.includes('integer')) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw)) return Number(raw);
  if (kinds.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (kinds.includes('null') && raw === 'null') return null;
  return raw;
}
