/**
 * The tool-call grammar used for constrained decoding (tool_choice "required" / a named function):
 * sampling bytes at random under it, with any budget that can hold a call, always yields lines that
 * parse as {"name": <one of the names>, "arguments": <object>} — the property the API relies on.
 */
import { expect, test } from 'vitest';
import { ToolCallConstraint } from '../../src/main/training/json-constraint.js';
import { walk } from '../helpers/constraint-walk.js';

/** The schema-less grammar: any object as arguments. */
const sample = (names: string[], budget: number, seed: number) => walk(new ToolCallConstraint(names), budget, seed);

test('random sampling under the constraint always gives valid calls of the named functions', () => {
  const names = ['get_weather', 'send_mail', 'get'];
  let ended = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const budget = 40 + (seed % 7) * 30;
    const r = sample(names, budget, seed);
    if (!r.ended) continue; // a budget may end exactly at the last closing byte (END not reached)
    ended++;
    for (const line of r.text.split('\n')) {
      const call = JSON.parse(line) as { name: string; arguments: unknown };
      expect(Object.keys(call)).toEqual(['name', 'arguments']);
      expect(names).toContain(call.name);
      expect(typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments)).toBe(true);
    }
  }
  expect(ended).toBeGreaterThan(250);
});

test('the budget closes what is open: the text at the end of the budget is one complete call', () => {
  for (let seed = 1; seed <= 100; seed++) {
    const r = sample(['f'], 34, seed); // {"name":"f","arguments":{}} is 28 bytes
    const text = r.text.split('\n')[0]!;
    expect(() => JSON.parse(text), text).not.toThrow();
  }
});
