#!/usr/bin/env node
// The `loupe` command: runs the built JavaScript of src/main/cli.ts (out/cli/, made by
// `npm run build:cli`, which `npm install` runs), so the installed command needs no TypeScript
// loader. From a checkout, `npm run loupe -- …` runs the sources instead.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../out/cli/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(built))) {
  console.error('loupe: the command is not built (out/cli/cli.js is missing): run `npm run build:cli` in the package folder, or `npm run loupe -- …` to run the sources');
  process.exit(1);
}
await import(built.href);
