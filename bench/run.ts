/**
 * `npm run bench`: runs every section in bench/sections/ in file-name order and prints figures.
 * Sections share one work directory (generated data, the 1M-span store) so later sections reuse
 * what earlier ones built. `npm run bench -- ingest chat` runs only sections whose name matches.
 * When some section's file name matches every filter, only such sections run: `npm run bench -- scale
 * clickhouse` is the ClickHouse scale section alone, `-- scale` both scale sections.
 * Targets are printed beside figures; nothing here asserts timings (these machines are noisy).
 */
import { readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchSection } from './lib/section.js';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(join(here, 'sections')).filter((f) => f.endsWith('.ts')).sort();
const workDir = process.env.LOUPE_BENCH_DIR ?? join(here, '.data');

const matchesAll = files.some((f) => filters.length > 1 && filters.every((x) => f.includes(x)));
for (const f of files) {
  if (filters.length && !(matchesAll ? filters.every((x) => f.includes(x)) : filters.some((x) => f.includes(x)))) continue;
  const mod = (await import(pathToFileURL(join(here, 'sections', f)).href)) as { default: BenchSection };
  if (mod.default.explicitOnly && !filters.length) {
    console.log(`\n=== ${mod.default.title} (${f}): skipped — runs only when named (npm run bench -- ${f.replace(/^\d+-|\.ts$/g, '')})`);
    continue;
  }
  console.log(`\n=== ${mod.default.title} (${f})`);
  const started = Date.now();
  await mod.default.run({ workDir, print: (k, v, target) => console.log(`  ${k.padEnd(44)} ${String(v).padStart(14)}${target ? `   (target ${target})` : ''}`) });
  console.log(`  section took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
