/** A real Loupe server on port 0 in a temp data dir, plus a small JSON client for the training API. */
import fs from 'node:fs';
import type { RunningLoupe } from '../../src/main/serve.js';
import { startTestServer, tempDir } from './server-harness.js';

export interface TrainingServer {
  loupe: RunningLoupe;
  url: string;
  key: string;
  dataDir: string;
  /** fetch + JSON; returns status and parsed body (null for an empty body). */
  req(method: string, p: string, body?: unknown, key?: string | null): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** `dataDir` reuses a directory (restart tests); `keep` leaves it in place on close. */
export async function startTrainingServer(opts: { dataDir?: string; keep?: boolean } = {}): Promise<TrainingServer> {
  const loupe = await startTestServer({ dataDir: opts.dataDir ?? tempDir('loupe-training-') });
  const dataDir = loupe.dataDir;
  const key = loupe.ctx.apiKey;
  const req: TrainingServer['req'] = async (method, p, body, k = key) => {
    const res = await fetch(`${loupe.url}${p}`, {
      method,
      headers: { ...(k === null ? {} : { authorization: `Bearer ${k}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    loupe,
    url: loupe.url,
    key,
    dataDir,
    req,
    close: async () => {
      await loupe.close();
      if (!opts.keep) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls a job's events with the `after` cursor until a terminal event; returns all events. */
export async function waitForJob(s: TrainingServer, jobId: string, everyMs = 200, timeoutMs = 120_000): Promise<{ id: string; type: string; data: any }[]> {
  const events: { id: string; type: string; data: any }[] = [];
  let after: string | null = null;
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = await s.req('GET', `/v1/preview/training-jobs/${jobId}/events?limit=100${after ? `&after=${after}` : ''}`);
    if (r.status !== 200) throw new Error(`events: ${r.status} ${JSON.stringify(r.body)}`);
    for (const e of r.body.data) {
      events.push(e);
      after = e.id;
    }
    if (events.some((e) => e.type === 'training_ended' || e.type === 'training_failed')) return events;
    if (!r.body.has_more) await new Promise((res) => setTimeout(res, everyMs));
  }
  throw new Error(`job ${jobId} did not finish within ${timeoutMs} ms`);
}
