#!/usr/bin/env node
// The `loupe` command: runs src/main/cli.ts through tsx (a runtime dependency), so the installed
// command and `npm run loupe` execute the same sources with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main/cli.ts');
