import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where a worker thread's code is, for every worker of Loupe (trainer, ingest). From sources
 * (vitest, tsx) modules are .ts files: start worker-bootstrap.mjs, which registers tsx and imports
 * `sourceEntry` — callers pass the returned `entry` as `workerData.entry`. LOUPE_WORKER_BUNDLE names
 * a folder of built workers (out/cli, `npm run build:cli`) to start instead when it holds
 * `bundleName`: the test run sets it (test/global-setup.ts builds out/cli from the same sources first),
 * since tsx costs each worker ~0.8 s of CPU and a test server starts several. In the electron-vite
 * bundle each worker is its own entry (`bundleName`, see electron.vite.config.ts) next to the main
 * entries; this code may sit in a chunk one level down, so both places are tried.
 */
export function workerLaunch(sourceEntry: URL, bundleName: string): { file: URL; entry?: string } {
  const here = import.meta.url;
  if (/\.[mc]?ts$/.test(fileURLToPath(here))) {
    const built = process.env.LOUPE_WORKER_BUNDLE;
    if (built) {
      const file = pathToFileURL(path.join(built, bundleName));
      if (fs.existsSync(file)) return { file };
    }
    return { file: new URL('./worker-bootstrap.mjs', here), entry: sourceEntry.href };
  }
  const candidates = [new URL(`./${bundleName}`, here), new URL(`../${bundleName}`, here)];
  const found = candidates.find((u) => fs.existsSync(fileURLToPath(u)));
  if (!found) throw new Error(`${bundleName} not found; looked at ${candidates.map((u) => fileURLToPath(u)).join(', ')}`);
  return { file: found };
}
