/**
 * The WAL stays small (issue 23.3; store/sqlite/wal.ts, docs/store.md "The WAL"). A running server
 * kept a WAL of ≥ 256 MiB for good (`wal_autocheckpoint = 16384` pages of 16 KiB) and wrote ~15 KB of
 * WAL per OTLP span. Here 20,000 spans of ~2 KB arrive over OTLP while two readers read all along:
 * the WAL file is within its cap after every answered post, and truncated to nothing once the server
 * is idle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spanCount, startTestServer, TEST_STORE } from './server-harness.js';
import { WAL_POLICY } from '../../src/main/store/sqlite/wal.js';
import { chatSpan2k, otlpRequest } from '../helpers/otlp.js';

const SPANS = 20_000;
const PER_POST = 500;
const body = (post: number) =>
  JSON.stringify(otlpRequest(Array.from({ length: PER_POST }, (_, i) => chatSpan2k(post * PER_POST + i)), { resource: { 'service.name': 'wal' } }));

describe.skipIf(TEST_STORE !== 'sqlite')('the WAL stays small (23.3)', () => {
  it(`${SPANS.toLocaleString('en-US')} spans over OTLP with readers reading: the WAL within ${WAL_POLICY.capBytes / 2 ** 20} MiB after every post, 0 bytes once idle`, async () => {
    const s = await startTestServer({ readers: 2 });
    const wal = path.join(s.dataDir, 'loupe.db-wal');
    const walSize = () => (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
    let reading = true;
    let reads = 0;
    const reader = async () => {
      while (reading) {
        await spanCount(s.url, 'local/default');
        reads++;
      }
    };
    const readers = [reader(), reader()];
    const sizes: number[] = [];
    try {
      for (let p = 0; p < SPANS / PER_POST; p++) {
        const res = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(p) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        sizes.push(walSize());
      }
      reading = false;
      await Promise.all(readers);
      expect(await spanCount(s.url, 'local/default')).toBe(SPANS);
      const most = Math.max(...sizes);
      console.log(`WAL after each of ${sizes.length} posts: at most ${(most / 2 ** 20).toFixed(1)} MiB; ${reads} reads beside them`);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(WAL_POLICY.capBytes);
      // Idle: checkpointed and truncated within a few idle periods.
      const t = Date.now();
      while (walSize() > 0 && Date.now() - t < 20 * WAL_POLICY.idleMs) await new Promise((r) => setTimeout(r, 200));
      expect(walSize()).toBe(0);
    } finally {
      reading = false;
      await Promise.all(readers).catch(() => undefined);
      await s.close();
    }
  }, 600_000);
});
