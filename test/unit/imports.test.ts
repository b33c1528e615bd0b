/**
 * The import rules of .dependency-cruiser.cjs, checked on every `npm test`: no import cycle anywhere
 * in src/ (type-only imports included), services and transports reach storage only through the store
 * port and its factory, and adapters import no service or transport code (issue 8 items 1 and 7).
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
import { repoRoot } from '../helpers/paths.js';

const require = createRequire(import.meta.url);

describe('imports', () => {
  it('have no cycle and respect the store port boundary', async () => {
    const config = require(`${repoRoot}/.dependency-cruiser.cjs`) as { forbidden: unknown[]; options: Record<string, unknown> };
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      const result = await cruise(['src/main', 'src/shared', 'src/preload'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
      const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number } };
      const violations = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle?.length ? v.cycle.map((c) => c.name).join(' → ') : v.to}`);
      expect(violations).toEqual([]);
      expect(output.summary.totalCruised).toBeGreaterThan(150);
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it('a cycle is caught (the rule is live)', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-cycle-'));
    writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B[];\n");
    writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a.js';\nexport type B = { a: A };\n");
    const config = require(`${repoRoot}/.dependency-cruiser.cjs`) as { forbidden: unknown[] };
    const result = await cruise([dir], { tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
    const names = (result.output as { summary: { violations: { rule: { name: string } }[] } }).summary.violations.map((v) => v.rule.name);
    expect(names).toContain('no-circular');
  });
});
