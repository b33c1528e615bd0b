/**
 * The 30 MB OTLP post of issue 19 ("acknowledged in ≤ 5 s"): whole requests of a generated JSONL
 * file joined into one OTLP/JSON body, posted to a `loupe serve`, timed to its answer and — when the
 * body was spooled (service/ingest/spool.ts) — to the end of its drain (POST /app/spool/drained,
 * which also waits for a ClickHouse store's summaries). Used by `npm run bench -- spool` and the
 * ClickHouse scale section.
 */
import fs from 'node:fs';
import type { BenchContext } from './section.js';
import { loadAverage } from './timing.js';

/** Whole requests of `file` (JSONL, one request a line) until `bytes`, as one request; with its span count. */
export function bigPostBody(file: string, bytes = 30 * 1024 * 1024): { body: string; spans: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] = [];
  let size = 0;
  for (const l of lines) {
    if (size >= bytes) break;
    size += l.length;
    resourceSpans.push(...(JSON.parse(l) as { resourceSpans: typeof resourceSpans }).resourceSpans);
  }
  const spans = resourceSpans.reduce((n, r) => n + r.scopeSpans.reduce((m, s) => m + s.spans.length, 0), 0);
  return { body: JSON.stringify({ resourceSpans }), spans };
}

/**
 * Posts `body` to `url`/v1/traces and prints the answer time, then the drain (spans/s) when it was
 * spooled. A 1 MB post of the same spans goes first (answered once stored, below the spool's size),
 * so the body worker is running, as in a server that has taken any large body since it started.
 */
export async function timeBigPost(url: string, post: { body: string; spans: number }, label: string, print: BenchContext['print']): Promise<void> {
  const small = JSON.parse(post.body) as { resourceSpans: unknown[] };
  const warm = JSON.stringify({ resourceSpans: small.resourceSpans.slice(0, Math.max(1, Math.floor(small.resourceSpans.length / 30))) });
  const w = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': 'bench/warm-up' }, body: warm });
  await w.text();
  const load = loadAverage();
  const spooledBefore = await backlog(url);
  const t = performance.now();
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': `bench/post-${Date.now().toString(36)}` }, body: post.body });
  const answer = await res.text();
  const ms = performance.now() - t;
  const spooled = (await backlog(url)) > spooledBefore;
  const how = spooled ? 'spooled' : 'stored';
  print(`${label}: OTLP post of ${(post.body.length / 1e6).toFixed(1)} MB, ${post.spans.toLocaleString('en-US')} spans (status ${res.status}, ${how}), load ${load}: answered in (s)`, (ms / 1000).toFixed(2), '≤ 5');
  if (res.status !== 200) print(`${label}:   answer`, answer.slice(0, 300));
  const t2 = performance.now();
  const drained = (await (await fetch(`${url}/app/spool/drained`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timeout_ms: 600_000 }) })).json()) as { drained: boolean };
  const drainS = (performance.now() - t2) / 1000;
  const totalS = (performance.now() - t) / 1000;
  if (spooled) {
    print(`${label}:   drained${drained.drained ? '' : ' (NOT within 600 s)'} after the answer in (s), load ${loadAverage()}`, drainS.toFixed(2));
    print(`${label}:   drain rate, spans/s (spans / (answer + drain))`, (post.spans / totalS).toFixed(0));
  } else {
    print(`${label}:   summaries written after (s, from the post), load ${loadAverage()}`, totalS.toFixed(2));
  }
}

/** Spooled bodies now, or 0 when the server spools nothing. */
async function backlog(url: string): Promise<number> {
  const h = (await (await fetch(`${url}/app/health`)).json()) as { spooled: { bodies: number } | null };
  return h.spooled?.bodies ?? 0; // a body being imported still counts: its file goes once stored
}
