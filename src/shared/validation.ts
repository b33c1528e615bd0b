import type { z } from 'zod';
import type { ValidationIssue } from './errors.js';
import { echoable } from './bounded.js';

/**
 * At most this many problems are listed in one 422; the rest are counted in a last entry. A body of
 * 250k bad sort entries answered a 26 MB error and stalled the server 5.5 s (issue 13.7).
 */
export const MAX_LISTED_ISSUES = 20;

/**
 * Zod issues → the FastAPI/pydantic `detail` entries the interface documents, so scripts written
 * against the hosted service read Loupe's 422s unchanged. `where` is the first `loc` element
 * ("body", "query" or "path"); `locOf` lets dispatch say where a top-level key came from.
 */
export function toValidationIssues(
  error: z.ZodError,
  raw: unknown,
  locOf: (key: string | number | undefined) => string = () => 'body',
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  let more = 0;
  for (const issue of error.issues) {
    if (out.length >= MAX_LISTED_ISSUES) {
      more += issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
      continue;
    }
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const at = (p: (string | number)[]) => [locOf(p[0]), ...p];
    const input = valueAt(raw, path);
    const i = issue as unknown as Record<string, unknown>;
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({ loc: at([...path, key]), msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: valueAt(raw, [...path, key]) });
        }
        break;
      case 'invalid_type': {
        if (input === undefined) {
          out.push({ loc: at(path), msg: 'Field required', type: 'missing', input: valueAt(raw, path.slice(0, -1)) ?? null });
          break;
        }
        const expected = String(i.expected);
        const [type, msg] = typeMessage(expected, input);
        out.push({ loc: at(path), msg, type, input });
        break;
      }
      case 'too_small':
      case 'too_big': {
        const small = issue.code === 'too_small';
        const bound = (small ? i.minimum : i.maximum) as number | bigint;
        const origin = String(i.origin);
        if (origin === 'array' || origin === 'set' || origin === 'string') {
          const what = origin === 'string' ? 'String' : 'List';
          const unit = origin === 'string' ? 'character' : 'item';
          const actual = Array.isArray(input) || typeof input === 'string' ? input.length : undefined;
          out.push({
            loc: at(path),
            msg: `${what} should have at ${small ? 'least' : 'most'} ${bound} ${unit}${Number(bound) === 1 ? '' : 's'}${origin === 'string' ? '' : ' after validation'}${actual === undefined ? '' : `, not ${actual}`}`,
            type: small ? (origin === 'string' ? 'string_too_short' : 'too_short') : origin === 'string' ? 'string_too_long' : 'too_long',
            input,
            ctx: { field_type: what, [small ? 'min_length' : 'max_length']: Number(bound), ...(actual === undefined ? {} : { actual_length: actual }) },
          });
        } else {
          const inclusive = i.inclusive !== false;
          const key = small ? (inclusive ? 'ge' : 'gt') : inclusive ? 'le' : 'lt';
          const words = { ge: 'greater than or equal to', gt: 'greater than', le: 'less than or equal to', lt: 'less than' }[key];
          const type = { ge: 'greater_than_equal', gt: 'greater_than', le: 'less_than_equal', lt: 'less_than' }[key];
          out.push({ loc: at(path), msg: `Input should be ${words} ${bound}`, type, input, ctx: { [key]: Number(bound) } });
        }
        break;
      }
      case 'invalid_value': {
        const values = (i.values as unknown[]) ?? [];
        const expected = values.map((v) => `'${String(v)}'`).join(', ').replace(/, ([^,]*)$/, ' or $1');
        out.push({ loc: at(path), msg: `Input should be ${expected}`, type: values.length === 1 ? 'literal_error' : 'enum', input, ctx: { expected } });
        break;
      }
      default:
        out.push({ loc: at(path), msg: issue.message, type: issue.code === 'custom' ? 'value_error' : String(issue.code), input });
    }
  }
  const listed = out.slice(0, MAX_LISTED_ISSUES);
  more += out.length - listed.length;
  for (const issue of listed) if ('input' in issue) issue.input = echoable(issue.input);
  if (more > 0) listed.push({ loc: [locOf(undefined)], msg: `and ${more} more problems not listed`, type: 'too_many_errors', ctx: { not_listed: more } });
  return listed;
}

function typeMessage(expected: string, input: unknown): [string, string] {
  switch (expected) {
    case 'int':
      return typeof input === 'number'
        ? ['int_from_float', 'Input should be a valid integer, got a number with a fractional part']
        : ['int_type', 'Input should be a valid integer'];
    case 'number':
      return ['float_type', 'Input should be a valid number'];
    case 'string':
      return ['string_type', 'Input should be a valid string'];
    case 'boolean':
      return ['bool_type', 'Input should be a valid boolean'];
    case 'array':
      return ['list_type', 'Input should be a valid list'];
    case 'object':
    case 'record':
      return ['dict_type', 'Input should be a valid dictionary'];
    default:
      return [`${expected}_type`, `Input should be a valid ${expected}`];
  }
}

function valueAt(raw: unknown, path: (string | number)[]): unknown {
  let cur = raw;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}
