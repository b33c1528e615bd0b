/**
 * The order test files start in (vitest `sequence.sequencer`): longest first, so that on two workers
 * the last files to start are short ones and neither worker idles while the other finishes a
 * five-minute file (issue 22.6).
 *
 * Vitest's own order uses the durations of this checkout's last run (node_modules/.vite/vitest);
 * without them — a fresh clone, CI after `npm ci` — it starts the largest files first, which put the
 * longest file of all (the whole-repository lint, ~2 KB of source) among the last to start, alone on
 * one worker for minutes at the end of the run. Here a file's weight is its last measured duration
 * when this checkout has one, else the figure listed in slow-files.ts, else nothing (such files keep
 * vitest's largest-first order, after the weighed ones).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FILES } from './slow-files.js';

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const weight = (f: TestSpecification): number => {
      const file = relative(root, f.moduleId);
      const measured = this.ctx.cache.getFileTestResults(`${f.project.name}:${file}`)?.duration;
      if (measured !== undefined) return measured;
      const listed = SLOW_FILES[`${f.project.name}:${file}`] ?? SLOW_FILES[file];
      return listed === undefined ? -1 : listed * 1000;
    };
    const at = new Map(base.map((f, i) => [f, i]));
    const w = new Map(base.map((f) => [f, weight(f)]));
    // Ties (and files with no weight) keep the base order.
    return [...base].sort((a, b) => w.get(b)! - w.get(a)! || at.get(a)! - at.get(b)!);
  }
}
