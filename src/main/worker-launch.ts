import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a worker thread's code is, for every worker of Loupe (trainer, ingest). From sources
 * (vitest, tsx) modules are .ts files: start worker-bootstrap.mjs, which registers tsx and imports
 * `sourceEntry` — callers pass the returned `entry` as `workerData.entry`. In the electron-vite
 * bundle each worker is its own entry (`bundleName`, see electron.vite.config.ts) next to the main
 * entries; this code may sit in a chunk one level down, so both places are tried.
 */
export function workerLaunch(sourceEntry: URL, bundleName: string): { file: URL; entry?: string } {
  const here = import.meta.url;
  if (/\.[mc]?ts$/.test(fileURLToPath(here))) {
    return { file: new URL('./worker-bootstrap.mjs', here), entry: sourceEntry.href };
  }
  const candidates = [new URL(`./${bundleName}`, here), new URL(`../${bundleName}`, here)];
  const found = candidates.find((u) => fs.existsSync(fileURLToPath(u)));
  if (!found) throw new Error(`${bundleName} not found; looked at ${candidates.map((u) => fileURLToPath(u)).join(', ')}`);
  return { file: found };
}
