/**
 * The order test files start in (test/sequencer.ts, issue 22.6): with no durations of this checkout's
 * own (a fresh clone, CI), the files test/slow-files.ts lists start first, longest first, and the
 * whole-repository lint — a small file that vitest's largest-first order started among the last —
 * starts first. Read through vitest's own API on the real configuration and test files.
 */
import { describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import { relative } from 'node:path';
import LongestFirstSequencer from '../sequencer.js';
import { SLOW_FILES } from '../slow-files.js';
import { repoRoot } from '../helpers/paths.js';

describe('test file order', () => {
  it('starts the listed long files first, longest first, when the checkout has no durations', async () => {
    const vitest = await createVitest('test', { root: repoRoot, cache: false, watch: false, reporters: [] }, {}, {});
    try {
      const specs = await vitest.globTestSpecifications();
      expect(specs.length).toBeGreaterThan(100);
      const order = (await new LongestFirstSequencer(vitest).sort(specs)).map((s) => `${s.project.name}:${relative(repoRoot, s.moduleId)}`);
      const weight = (key: string) => SLOW_FILES[key] ?? SLOW_FILES[key.replace(/^sqlite:/, '')] ?? SLOW_FILES[key.replace(/^clickhouse:/, '')];
      const listed = order.filter((k) => weight(k) !== undefined);
      // Every listed file before every other one, in decreasing weight.
      expect(order.slice(0, listed.length)).toEqual(listed);
      for (let i = 1; i < listed.length; i++) expect(weight(listed[i - 1]!)!, `${listed[i - 1]} before ${listed[i]}`).toBeGreaterThanOrEqual(weight(listed[i]!)!);
      expect(order[0]).toBe('sqlite:test/unit/lint.test.ts');
      // Each listed file exists (a renamed file would silently lose its place).
      const present = new Set(order.map((k) => k.replace(/^(sqlite|clickhouse):/, '')));
      for (const file of Object.keys(SLOW_FILES)) expect(present.has(file.replace(/^clickhouse:/, '')), file).toBe(true);
    } finally {
      await vitest.close();
    }
  }, 120_000);
});
