/** A random walk under the tool-call constraint: the worst a model can do (unit tests of json-constraint.ts). */
import { expect } from 'vitest';
import type { ToolCallConstraint } from '../../src/main/training/json-constraint.js';
import { seededRandom } from '../../src/shared/seeded-random.js';

const END = 256;

/**
 * Samples uniformly among allowed tokens (bytes 0–255 and END, END counted `endWeight` times: a model
 * leans towards ending after a call) until END or the budget is spent.
 */
export function walk(c: ToolCallConstraint, budget: number, seed: number, endWeight = 3): { text: string; ended: boolean } {
  const rand = seededRandom(seed);
  const bytes: number[] = [];
  for (let left = budget; left > 0; left--) {
    const a = c.allowed(left);
    const options = [...Array(256).keys()].filter((b) => a.bytes(b));
    if (a.end) for (let k = 0; k < endWeight; k++) options.push(END);
    expect(options.length, `nothing allowed after ${Buffer.from(bytes).toString()}`).toBeGreaterThan(0);
    const pick = options[Math.floor(rand() * options.length)]!;
    if (pick === END) return { text: Buffer.from(bytes).toString('utf8'), ended: true };
    bytes.push(pick);
    c.push(pick);
  }
  return { text: Buffer.from(bytes).toString('utf8'), ended: false };
}
