/**
 * Tool-call arguments constrained to the function's JSON Schema (issue 22.13): sampling bytes at
 * random under the constraint — the worst a model can do — for several schemas and every budget from
 * the least that holds a call upwards, each call parses and its arguments validate against the
 * function's `parameters` (ajv): required keys present, types right, enums, nested objects and
 * arrays, item counts — and still does once written back as JSON text (every number a finite double).
 */
import { expect, test } from 'vitest';
import { Ajv } from 'ajv';
import { ToolCallConstraint } from '../../src/main/training/json-constraint.js';
import { walk } from '../helpers/constraint-walk.js';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  get_weather: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
    required: ['city', 'unit'],
  },
  add_user: {
    type: 'object',
    properties: {
      user: {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer' }, admin: { type: 'boolean' }, email: { type: ['string', 'null'] } },
        required: ['name', 'age', 'admin'],
      },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      score: { type: 'number' },
    },
    required: ['user', 'tags', 'score'],
  },
  plot: {
    type: 'object',
    properties: {
      points: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] }, minItems: 2, maxItems: 3 },
      style: { const: 'line' },
      options: { type: 'object' },
      level: { enum: [1, 12, 'high', null, true] },
    },
    required: ['points', 'style', 'options'],
  },
  noop: { type: 'object', properties: {} },
};

const ajv = new Ajv({ strict: false });
const validators = Object.fromEntries(Object.entries(SCHEMAS).map(([k, s]) => [k, ajv.compile(s)]));

const sample = (c: ToolCallConstraint, budget: number, seed: number) => walk(c, budget, seed, 6);

function checkCalls(text: string, names: string[]): number {
  let n = 0;
  for (const line of text.split('\n')) {
    const call = JSON.parse(line) as { name: string; arguments: unknown };
    expect(names).toContain(call.name);
    // As the API returns them: JSON text again (a number that overflowed a double would read back as null).
    const ok = validators[call.name]!(JSON.parse(JSON.stringify(call.arguments)));
    expect(ok, `${line}: ${JSON.stringify(validators[call.name]!.errors)}`).toBe(true);
    n++;
  }
  return n;
}

test('every call sampled at random under a schema validates against it, for every budget from the least upwards', () => {
  let calls = 0;
  for (const name of Object.keys(SCHEMAS)) {
    const least = new ToolCallConstraint([name], SCHEMAS).cost();
    for (let seed = 1; seed <= 60; seed++) {
      const budget = least + (seed % 10) * (seed % 3 === 0 ? 40 : 4);
      const r = sample(new ToolCallConstraint([name], SCHEMAS), budget, seed);
      // At the least budget the call ends exactly at its last byte (no room for the end token is needed).
      calls += checkCalls(r.text, [name]);
    }
  }
  expect(calls).toBeGreaterThanOrEqual(4 * 60);
});

test('with several functions the sampled name picks the schema its arguments follow', () => {
  const names = Object.keys(SCHEMAS);
  const seen = new Set<string>();
  for (let seed = 1; seed <= 120; seed++) {
    const c = new ToolCallConstraint(names, SCHEMAS);
    const r = sample(c, 60 + (seed % 8) * 50, seed);
    if (!r.ended) continue;
    checkCalls(r.text, names);
    for (const line of r.text.split('\n')) seen.add((JSON.parse(line) as { name: string }).name);
  }
  expect([...seen].sort()).toEqual(names.sort());
});

test('the least budget is what the shortest valid call takes: every required member with its shortest value', () => {
  // {"name":"get_weather","arguments":{"city":"","unit":"celsius"}} + the end token
  expect(new ToolCallConstraint(['get_weather'], SCHEMAS).cost()).toBe('{"name":"get_weather","arguments":{"city":"","unit":"celsius"}}'.length + 1);
  // A budget one short of it cannot hold a valid call; at it, the call completes.
  const least = new ToolCallConstraint(['plot'], SCHEMAS).cost();
  for (let seed = 1; seed <= 20; seed++) {
    const r = sample(new ToolCallConstraint(['plot'], SCHEMAS), least, seed);
    checkCalls(r.text, ['plot']);
  }
});
