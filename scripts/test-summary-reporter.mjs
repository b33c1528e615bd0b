// A vitest reporter used by `npm test` (scripts/test.mjs): it counts what the closing line says, and
// counts a test file or suite that failed outside its tests (import error, beforeAll throwing because
// Chromium or ClickHouse is missing, afterAll failing) as failed, with the reason. Vitest's own JSON
// report lists the tests of a suite whose beforeAll threw as "skipped" with no message, so a run with
// no browser read "0 passed, 0 failed, 1 skipped" while exiting 1.
// It writes its summary as JSON to the file named by LOUPE_TEST_SUMMARY; test.mjs prints it.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

/** The first line of an error, without ANSI colours. */
function firstLine(err) {
  const text = stripVTControlCharacters(String(err?.message ?? err ?? 'unknown error'));
  return text.split('\n').find((l) => l.trim())?.trim() ?? 'unknown error';
}

export default class SummaryReporter {
  onInit(ctx) {
    this.root = ctx.config.root;
  }

  onTestRunEnd(modules, unhandledErrors) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const setupFailures = [];
    for (const mod of modules) {
      const project = mod.project.name;
      const where = (e) => `${project ? `[${project}] ` : ''}${relative(this.root, mod.moduleId)}${e.type === 'suite' ? ` > ${e.fullName}` : ''}`;
      // Deepest suites first, so a test is charged to the suite whose hook failed.
      const entities = [...mod.children.allSuites()].reverse().concat([mod]);
      const charged = new Set();
      for (const e of entities) {
        const errors = e.errors();
        if (errors.length === 0) continue;
        let n = 0;
        for (const t of e.children.allTests()) {
          const state = t.result().state;
          if (charged.has(t) || t.options.mode !== 'run' || (state !== 'skipped' && state !== 'pending')) continue;
          charged.add(t);
          n += 1;
        }
        // A suite whose afterAll failed after its tests passed, or a file that failed on import, still counts once.
        setupFailures.push({ where: where(e), notRun: n, tests: Math.max(n, 1), reason: firstLine(errors[0]) });
      }
      for (const t of mod.children.allTests()) {
        if (charged.has(t)) continue;
        const state = t.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    const setupFailed = setupFailures.reduce((sum, f) => sum + f.tests, 0);
    const summary = {
      passed,
      failed: failed + setupFailed + unhandledErrors.length,
      skipped,
      setupFailures,
      unhandledErrors: unhandledErrors.map(firstLine),
      modules: modules.length,
    };
    if (process.env.LOUPE_TEST_SUMMARY) writeFileSync(process.env.LOUPE_TEST_SUMMARY, JSON.stringify(summary));
  }
}
