/**
 * Imports by another process into a running server's data folder appear live: the real `loupe import`
 * CLI writes into the same SQLite file, and the server announces `data.changed` for that project
 * (PRAGMA data_version polling, service/system/external-writes.ts) without any request from a view.
 * Its own writes announce themselves once, never twice through the poll.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoupeEvent } from '../../src/shared/events.js';
import { repoRoot, samplesDir, spanCount, startTestServer } from './server-harness.js';

const run = promisify(execFile);
const bin = path.join(repoRoot, 'bin/loupe.js');

describe('writes by another process', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  const events: LoupeEvent[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    server.ctx.events.on((e) => events.push(e));
  });
  afterAll(() => server?.close());

  const waitFor = async (pred: (e: LoupeEvent) => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (events.some(pred)) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  it('a CLI import into the same data folder is announced as data.changed for its project', async () => {
    expect(await spanCount(server.url, 'ext/cli')).toBe(0);
    await run(process.execPath, [bin, 'import', path.join(samplesDir, 'collector-fileexporter-style.jsonl'), '--project', 'ext/cli', '--data-dir', server.dataDir]);
    // The poll runs every second; allow a few for a loaded machine.
    expect(await waitFor((e) => e.type === 'data.changed' && e.project_id === 'ext/cli', 10_000)).toBe(true);
    expect(await spanCount(server.url, 'ext/cli')).toBeGreaterThan(0);
  }, 60_000);

  it("the server's own writes are announced by the write itself, not again by the poll", async () => {
    events.length = 0;
    const body = fs.readFileSync(path.join(samplesDir, 'vercel-ai-sdk.in.json'), 'utf8');
    const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': 'own/write' }, body });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(events.filter((e) => e.type === 'data.changed' && e.project_id === 'own/write')).toHaveLength(1);
    expect(events.some((e) => e.type === 'data.changed' && e.project_id === null)).toBe(false);
  });
});
