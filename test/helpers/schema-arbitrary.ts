/**
 * fast-check arbitraries from an operation's contract schema (its zod input as JSON Schema, the same
 * document /openapi.json serves), for property tests over every operation. Values follow the schema
 * most of the time, so requests get past validation into handlers and SQL, and are otherwise swapped,
 * at any depth, for hostile values (prototype names, huge and negative numbers, far dates, long
 * strings, control characters, deep nesting, wrong types, extra keys).
 */
import fc from 'fast-check';

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | Schema;
};

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

/** Values that broke something once somewhere: a string field, a number field, a name. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    ...PROTO_NAMES,
    '',
    ' ',
    '\u0000',
    "'; DROP TABLE spans; --",
    '"',
    '\\',
    '%E0%A4%A',
    '../../../../etc/passwd',
    '/etc/shadow',
    '9999-12-31T23:59:59Z',
    '+275760-09-13T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '1970-01-01',
    'NaN',
    '-1',
    '1e309',
    '18446744073709551616',
    '$expr',
    'custom_attrs_string.__proto__',
    'custom_attrs_int.a"b',
    'file:///etc/hosts',
    'http://127.0.0.1:1/',
    '\ud800',
  ),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, -1e308, 0.5, Number.MAX_SAFE_INTEGER + 2, 10_000_001),
  fc.constantFrom(null, true, false, [], {}, [[[]]], { __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"x":1}}')),
  fc.string({ minLength: 1000, maxLength: 5000 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.constantFrom(...PROTO_NAMES), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
);

function typed(s: Schema, depth: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(a, depth)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const props = s.properties ?? {};
      const keys = Object.keys(props);
      if (!keys.length) return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const required = new Set(s.required ?? []);
      const record = fc.record(
        Object.fromEntries(keys.map((k) => [k, fromSchema(props[k]!, depth + 1)])),
        { requiredKeys: keys.filter((k) => required.has(k)) },
      );
      return record;
    }
    case 'array':
      return fc.array(fromSchema(s.items ?? {}, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case 'string':
      return fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 24, 24) }) },
        { weight: 1, arbitrary: fc.constantFrom('local/demo', 'conv-order-a1187', 'agent_name', 'span_count', 'started_at', 'triage', '2026-11-22T10:00:00Z') },
      );
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 1000, 1e9) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** Mostly what the schema describes; sometimes, at this depth, something hostile instead. */
export function fromSchema(s: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  return fc.oneof({ weight: 6, arbitrary: typed(s, depth) }, { weight: 1, arbitrary: hostile });
}

/** A whole operation input: the schema's object, maybe with an extra key, maybe replaced whole. */
export function inputArbitrary(schema: Schema): fc.Arbitrary<unknown> {
  const body = typed(schema, 0);
  return fc.oneof(
    { weight: 8, arbitrary: body },
    { weight: 1, arbitrary: fc.tuple(body, fc.constantFrom(...PROTO_NAMES, 'extra'), hostile).map(([b, k, v]) => (b && typeof b === 'object' ? { ...b, [k]: v } : b)) },
    { weight: 1, arbitrary: hostile },
  );
}
