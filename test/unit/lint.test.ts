/**
 * ESLint over the whole repository (eslint.config.js), on every `npm test`: any problem, error or
 * warning, fails the run and is listed as file:line:column rule message. `npm run lint` runs the
 * same check on its own. Type-aware, so a full run takes about a minute of CPU and 4–5 minutes of
 * wall time under load (docs/decisions/0019-lint.md).
 * In a developer's `npm test` ESLint's cache (node_modules/.cache/loupe-eslint, keyed on file content
 * and config) re-lints only the files changed since the last run in this checkout; CI
 * (`LOUPE_LINT=all`, set by .ci/run, or CI=true) lints every file without a cache, which also catches
 * a finding in an unchanged file caused by a type changed elsewhere.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { repoRoot } from '../helpers/paths.js';

const full = process.env.LOUPE_LINT === 'all' || !!process.env.CI;

describe('lint', () => {
  it(`finds no problem in the repository (${full ? 'every file' : 'files changed since the last cached run'})`, async () => {
    const eslint = new ESLint(
      full
        ? { cwd: repoRoot }
        : { cwd: repoRoot, cache: true, cacheStrategy: 'content', cacheLocation: path.join(repoRoot, 'node_modules/.cache/loupe-eslint/') },
    );
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${path.relative(repoRoot, r.filePath)}:${m.line}:${m.column} ${m.ruleId ?? '(parse)'} ${m.message.split('\n')[0]}`),
    );
    expect(problems).toEqual([]);
    // The run covered the repository, not an empty selection.
    expect(results.length).toBeGreaterThan(400);
  }, 900_000);

  it('has the promise and hooks rules on where they matter (the config is live)', async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const server = (await eslint.calculateConfigForFile('src/main/transport/http.ts')) as { rules: Record<string, unknown[]> };
    for (const rule of ['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-misused-promises', '@typescript-eslint/no-explicit-any']) {
      expect(server.rules[rule]?.[0], rule).toBe(2);
    }
    const ui = (await eslint.calculateConfigForFile('src/renderer/src/pages/trace/TracePage.tsx')) as { rules: Record<string, unknown[]> };
    expect(ui.rules['react-hooks/rules-of-hooks']?.[0]).toBe(2);
    expect(ui.rules['react-hooks/exhaustive-deps']?.[0]).toBe(2);
    // And a plain-JS problem is reported (no type information needed for this one).
    const [probe] = await eslint.lintText('const unused = 1;\n', { filePath: path.join(repoRoot, 'scripts/lint-probe.mjs') });
    expect(probe!.messages.map((m) => m.ruleId)).toContain('no-unused-vars');
  }, 120_000);
});
