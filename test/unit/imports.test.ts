/**
 * The import rules of .dependency-cruiser.cjs, checked on every `npm test`: no import cycle anywhere
 * in src/ (type-only imports included), services and transports reach storage only through the store
 * port and its factory, adapters import no service or transport code (issue 8 items 1 and 7), and
 * no adapter imports another (issue 19 item 4: what both need lives in domain/).
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

  it('an adapter importing the other is caught (the rule is live)', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const root = mkdtempSync(path.join(tmpdir(), 'loupe-adapters-'));
    const store = path.join(root, 'src/main/store');
    for (const d of ['sqlite', 'clickhouse', 'migrations']) mkdirSync(path.join(store, d), { recursive: true });
    writeFileSync(path.join(store, 'sqlite/rule.ts'), 'export const rule = 1;\n');
    writeFileSync(path.join(store, 'sqlite/own.ts'), "import { rule } from './rule.js';\nexport const own = rule;\n");
    writeFileSync(path.join(store, 'migrations/0001.ts'), 'export const m = 1;\n');
    writeFileSync(path.join(store, 'clickhouse/reads.ts'), "import { rule } from '../sqlite/rule.js';\nimport { m } from '../migrations/0001.js';\nexport const r = rule + m;\n");
    writeFileSync(path.join(store, 'sqlite/back.ts'), "import { r } from '../clickhouse/reads.js';\nexport const b = r;\n");
    const config = require(`${repoRoot}/.dependency-cruiser.cjs`) as { forbidden: unknown[] };
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const result = await cruise(['src'], { tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
      const found = (result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } }).summary.violations
        .filter((v) => v.rule.name.startsWith('adapters-apart'))
        .map((v) => `${v.from} → ${v.to}`)
        .sort();
      expect(found).toEqual([
        'src/main/store/clickhouse/reads.ts → src/main/store/migrations/0001.ts',
        'src/main/store/clickhouse/reads.ts → src/main/store/sqlite/rule.ts',
        'src/main/store/sqlite/back.ts → src/main/store/clickhouse/reads.ts',
      ]);
    } finally {
      process.chdir(cwd);
    }
  });
});
