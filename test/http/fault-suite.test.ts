/**
 * The fault suite (issue 13, "Done when"): Loupe killed with SIGKILL at random points — during a CLI
 * import, a server file import, parallel OTLP posts and a training job, KILLS times each — and after
 * every kill: the database passes integrity_check, its read summaries agree with its spans, every
 * OTLP request that was acknowledged is stored whole, an interrupted import completed by running it
 * again gives exactly the store a clean import gives (every summary table equal), and a training job
 * ends with exactly one terminal event. Plus two instances on one folder while a job runs.
 *
 * Real processes (`loupe serve`, `loupe import` from bin/loupe.js), real files, real SQLite. Bounded:
 * small inputs, a fixed seed for the kill points (LOUPE_FAULT_SEED), KILLS per scenario (default 5).
 * The counts are printed at the end ("fault suite: N kills survived").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './server-harness.js';
import { exited, loupeBin, spawnServe, type Served } from '../helpers/spawn-loupe.js';
import { spansPerProject, storeConsistency, summaryTables } from '../helpers/store-consistency.js';
import { generateDemo } from '../../src/main/demo/generate.js';
import { seededRandom } from '../../src/shared/seeded-random.js';

const KILLS = Number(process.env.LOUPE_FAULT_KILLS ?? 5);
const random = seededRandom(Number(process.env.LOUPE_FAULT_SEED ?? 13));
const survived: Record<string, number> = {};
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  const total = Object.values(survived).reduce((a, b) => a + b, 0);
  console.log(`fault suite: ${total} kills survived (${Object.entries(survived).map(([k, v]) => `${k} ${v}`).join(', ')})`);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => Math.round(lo + random() * (hi - lo));
const keyOf = (dataDir: string) => fs.readFileSync(path.join(dataDir, 'training.key'), 'utf8').trim();
const dbOf = (dataDir: string) => path.join(dataDir, 'loupe.db');

/** A JSONL trace file (the demo's conversations plus seeded fillers, one OTLP request per line). */
function traceFile(dir: string, fillers: number): { file: string; spans: number } {
  const demo = generateDemo({ seed: 42, now: Date.UTC(2026, 10, 22), fillers });
  const file = path.join(dir, 'traces.jsonl');
  fs.writeFileSync(file, demo.requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { file, spans: demo.spans };
}

/** Waits until the store holds at least one span (the import is writing), or the child ended. */
async function untilWriting(dataDir: string, child: ChildProcess, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && child.exitCode === null) {
    if (fs.existsSync(dbOf(dataDir))) {
      try {
        if ([...spansPerProject(dbOf(dataDir)).values()].some((n) => n > 0)) return true;
      } catch {
        // Not migrated yet: keep looking.
      }
    }
    await sleep(20);
  }
  return child.exitCode === null;
}

async function kill9(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  expect(await exited(child)).toBe('SIGKILL');
}

function expectConsistent(dataDir: string, when: string): void {
  expect(storeConsistency(dbOf(dataDir)), when).toEqual([]);
}

const importCli = (dataDir: string, file: string) =>
  spawn(process.execPath, [loupeBin, 'import', file, '--data-dir', dataDir, '--project', 'fault/cli'], { stdio: ['ignore', 'pipe', 'pipe'] });

describe('kill -9 during imports', () => {
  const work = tempDir('loupe-fault-');
  const input = traceFile(work, 400);
  // The store a clean, uninterrupted import gives: what every interrupted one must end up equal to.
  const reference = path.join(work, 'reference');

  it('a clean import first (the reference)', async () => {
    const child = importCli(reference, input.file);
    children.push(child);
    expect(await exited(child)).toBe(0);
    expect(spansPerProject(dbOf(reference)).get('fault/cli')).toBe(input.spans);
    expectConsistent(reference, 'reference');
  }, 120_000);

  it(`CLI import: ${KILLS} kills at random points, each store consistent; finished by re-import it equals the clean one`, async () => {
    const dataDir = path.join(work, 'cli');
    for (let k = 0; k < KILLS; k++) {
      const child = importCli(dataDir, input.file);
      children.push(child);
      let killed = false;
      if (await untilWriting(dataDir, child)) {
        await sleep(between(0, 800));
        if (child.exitCode === null) killed = (await kill9(child), true);
      }
      if (!killed) await exited(child); // it finished first: still a valid point, but not counted as a kill
      expectConsistent(dataDir, `after kill ${k + 1}`);
      if (killed) survived['CLI import'] = (survived['CLI import'] ?? 0) + 1;
    }
    expect(survived['CLI import'] ?? 0).toBeGreaterThan(0);
    const finish = importCli(dataDir, input.file);
    children.push(finish);
    expect(await exited(finish)).toBe(0);
    expect(spansPerProject(dbOf(dataDir)).get('fault/cli')).toBe(input.spans);
    expect(summaryTables(dbOf(dataDir))).toEqual(summaryTables(dbOf(reference)));
  }, 300_000);

  it(`server import (POST /import by path): ${KILLS} kills of the server mid-import, each store consistent; finished, it equals the clean one`, async () => {
    const dataDir = path.join(work, 'server');
    const importVia = (s: Served) =>
      fetch(`${s.url}/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf(dataDir)}` },
        body: JSON.stringify({ paths: [input.file], project_id: 'fault/cli' }),
      });
    for (let k = 0; k < KILLS; k++) {
      const s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
      const pending = importVia(s).then((r) => r.status, () => 'cut');
      await untilWriting(dataDir, s.child);
      await sleep(between(0, 800));
      await kill9(s.child);
      // No answer came: the kill landed while the import ran (otherwise the point is valid but not counted).
      const cut = (await pending) === 'cut';
      expectConsistent(dataDir, `after kill ${k + 1}`);
      if (cut) survived['server import'] = (survived['server import'] ?? 0) + 1;
    }
    expect(survived['server import'] ?? 0).toBeGreaterThan(0);
    const s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
    const res = await importVia(s);
    expect(res.status).toBe(200);
    s.child.kill('SIGTERM');
    await exited(s.child);
    expect(spansPerProject(dbOf(dataDir)).get('fault/cli')).toBe(input.spans);
    expect(summaryTables(dbOf(dataDir))).toEqual(summaryTables(dbOf(reference)));
  }, 300_000);
});

describe('kill -9 during parallel OTLP posts', () => {
  it(`${KILLS} kills while 4 clients post: every acknowledged request is stored whole, the store consistent`, async () => {
    const dataDir = tempDir('loupe-fault-otlp-');
    const acknowledged: { project: string; spans: number }[] = [];
    let requestNo = 0;
    const body = (project: string, n: number) => {
      const traceId = Buffer.from(project.padEnd(16, '.').slice(-16)).toString('hex');
      return JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fault' } }] },
            scopeSpans: [
              {
                spans: Array.from({ length: n }, (_, i) => ({
                  traceId,
                  spanId: (i + 1).toString(16).padStart(16, '0'),
                  parentSpanId: i ? '0000000000000001' : '',
                  name: i ? `chat ${i}` : 'invoke_agent support',
                  startTimeUnixNano: String(1_763_800_000_000_000_000n + BigInt(i) * 1000n),
                  endTimeUnixNano: String(1_763_800_000_500_000_000n + BigInt(i) * 1000n),
                  attributes: [
                    { key: 'gen_ai.agent.name', value: { stringValue: 'support' } },
                    { key: 'gen_ai.usage.input_tokens', value: { intValue: String(10 + i) } },
                    { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'x'.repeat(800) }] }]) } },
                  ],
                })),
              },
            ],
          },
        ],
      });
    };
    for (let k = 0; k < KILLS; k++) {
      const s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
      let stop = false;
      const client = async () => {
        while (!stop) {
          const project = `fault/otlp-${++requestNo}`;
          const n = between(20, 200);
          try {
            const res = await fetch(`${s.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': project }, body: body(project, n) });
            // Acknowledged = 200 without rejected spans: the exporter forgets these and must never lose them.
            if (res.status === 200 && JSON.stringify(await res.json()) === '{}') acknowledged.push({ project, spans: n });
          } catch {
            return; // the server died under this request: not acknowledged
          }
        }
      };
      const before = acknowledged.length;
      const clients = Array.from({ length: 4 }, client);
      // Kill while posts are running: after this server has acknowledged one (its first answer pays
      // the body worker's start, slower than the old 300 ms floor under load), then at a random point.
      for (const t0 = Date.now(); acknowledged.length === before && Date.now() - t0 < 60_000; ) await sleep(20);
      await sleep(between(300, 1500));
      await kill9(s.child);
      stop = true;
      await Promise.all(clients);
      expectConsistent(dataDir, `after kill ${k + 1}`);
      const stored = spansPerProject(dbOf(dataDir));
      const lost = acknowledged.filter((a) => stored.get(a.project) !== a.spans);
      expect(lost, `acknowledged but not stored whole after kill ${k + 1}`).toEqual([]);
      survived['parallel OTLP posts'] = (survived['parallel OTLP posts'] ?? 0) + 1;
    }
    expect(acknowledged.length).toBeGreaterThan(KILLS); // the posts really ran between kills
  }, 300_000);
});

describe('kill -9 during a training job', () => {
  const PAIRS = ['2+2?=four', 'sky?=blue', 'hot?=cold', 'cat?=meow'];
  const line = (p: string) => {
    const [q, a] = p.split('=');
    return JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: a }], tools: [] });
  };

  async function api(s: Served, dataDir: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${s.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${keyOf(dataDir)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async function events(s: Served, dataDir: string, job: string): Promise<string[]> {
    const r = await api(s, dataDir, 'GET', `/v1/preview/training-jobs/${job}/events?limit=100`);
    return (r.body.data as { type: string }[]).map((e) => e.type);
  }

  it(`${KILLS} kills while a job trains: after restart every job ends once (FAILED with a reason, or COMPLETED), the next one runs, the store is consistent`, async () => {
    const dataDir = tempDir('loupe-fault-train-');
    const data = path.join(dataDir, 'qa.jsonl');
    fs.writeFileSync(data, `${Array.from({ length: 60 }, (_, i) => line(PAIRS[i % PAIRS.length]!)).join('\n')}\n`);
    let s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
    const model = await api(s, dataDir, 'POST', '/v1/preview/models', { project: 'fault', name: 'm', base_model: 'loupe-test-bytes' });
    expect(model.status).toBe(200);
    const jobs: string[] = [];
    const submit = async () => {
      const job = await api(s, dataDir, 'POST', '/v1/preview/sft-training-jobs', { model_id: model.body.id, training_data_url: `file://${data}`, config: { batch_size: 4 } });
      expect(job.status, JSON.stringify(job.body)).toBe(200);
      jobs.push(job.body.id);
      return job.body.id as string;
    };
    for (let k = 0; k < KILLS; k++) {
      const id = await submit();
      // Kill while it runs (or, at random, before it started or after it ended).
      const until = Date.now() + 60_000;
      while (Date.now() < until && (await api(s, dataDir, 'GET', `/v1/preview/training-jobs/${id}`)).body.status === 'QUEUED') await sleep(25);
      await sleep(between(0, 1500));
      await kill9(s.child);
      expectConsistent(dataDir, `after kill ${k + 1}`);
      s = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children);
      const job = (await api(s, dataDir, 'GET', `/v1/preview/training-jobs/${id}`)).body;
      expect(['FAILED', 'COMPLETED', 'QUEUED', 'RUNNING']).toContain(job.status);
      if (job.status === 'FAILED') expect(job.error_message).toMatch(/stopped|interrupt|restart/i);
      survived['training job'] = (survived['training job'] ?? 0) + 1;
    }
    // One more job after all the kills trains to the end.
    const last = await submit();
    const until = Date.now() + 180_000;
    while (Date.now() < until && !['COMPLETED', 'FAILED'].includes((await api(s, dataDir, 'GET', `/v1/preview/training-jobs/${last}`)).body.status)) await sleep(200);
    for (const id of jobs) {
      const types = await events(s, dataDir, id);
      const terminal = types.filter((t) => t === 'training_ended' || t === 'training_failed');
      expect(terminal, `job ${id}: ${types.join(',')}`).toHaveLength(1);
      expect(types.at(-1), `job ${id}`).toBe(terminal[0]);
    }
    expect((await api(s, dataDir, 'GET', `/v1/preview/training-jobs/${last}`)).body.status).toBe('COMPLETED');

    // Two instances on one folder while jobs exist: the second is refused; the jobs are untouched.
    const second = await spawnServe(['--data-dir', dataDir, '--port', '0'], {}, children).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(second?.code).toBe(1);
    expect(second?.stderr).toMatch(/in use by loupe serve/);
    for (const id of jobs) expect((await events(s, dataDir, id)).filter((t) => t === 'training_ended' || t === 'training_failed')).toHaveLength(1);
    s.child.kill('SIGTERM');
    await exited(s.child);
    expectConsistent(dataDir, 'at the end');
  }, 600_000);
});
