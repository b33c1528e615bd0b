#!/usr/bin/env node
// Completes package-lock.json with entries for platform-specific optional packages that the npm
// registry reachable from our build machines does not carry (e.g. rollup's binaries for Android,
// macOS, Windows, musl). `npm install` silently leaves them out of the lock when it cannot fetch
// their metadata, and `npm ci` then refuses the lock as "out of sync". Each added entry is marked
// optional with its os/cpu/libc fields, so npm never fetches it on a platform it does not match.
// Run after any `npm install` that rewrites the lock:  node scripts/complete-lock.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

/** os/cpu/libc of a package: from the wanted version, else from any version the registry has. */
function platformFields(name, version) {
  for (const spec of [`${name}@${version}`, name]) {
    try {
      const out = execFileSync('npm', ['view', spec, 'os', 'cpu', 'libc', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      let meta = out.trim() ? JSON.parse(out) : {};
      if (Array.isArray(meta)) meta = meta.at(-1) ?? {};
      if (meta.os || meta.cpu) return meta;
    } catch {
      // not in this registry: try the next spec
    }
  }
  return null;
}

const added = [];
for (const [key, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const top = `node_modules/${dep}`;
    if (packages[top] || packages[`${key}/node_modules/${dep}`]) continue;
    const version = range.replace(/^[~^]/, '');
    const meta = platformFields(dep, version);
    if (!meta) {
      console.warn(`skipped ${dep}: no platform fields known, so it cannot be marked safely`);
      continue;
    }
    const e = { version, optional: true, ...(entry.dev ? { dev: true } : {}) };
    for (const f of ['cpu', 'os', 'libc']) if (meta[f]) e[f] = [].concat(meta[f]);
    packages[top] = e;
    added.push(dep);
  }
}
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} platform-gated entries: ${added.join(', ')}` : 'lock already complete');
