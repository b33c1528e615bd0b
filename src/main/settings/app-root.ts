/**
 * The package root (where package.json and out/ live), found by walking up from this module. Works
 * from the sources under tsx (src/main/settings) and from the electron-vite bundle (out/main).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | null = null;

export function appInfo(): { root: string; version: string } {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      const json = JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
      if (json.name === 'loupe') return (cached = { root: dir, version: json.version ?? '0.0.0' });
    }
    const up = path.dirname(dir);
    if (up === dir) return (cached = { root: process.cwd(), version: '0.0.0' });
    dir = up;
  }
}

/** out/renderer of the package when it was built, else null (API only). */
export function defaultRendererDir(): string | null {
  const dir = path.join(appInfo().root, 'out', 'renderer');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : null;
}
