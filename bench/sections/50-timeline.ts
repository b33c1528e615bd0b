/**
 * Trace timeline figures (issue 5: a 20,000-span trace opens in the timeline in under 2 s): the
 * server side of `traces.timeline` for a generated 20,000-span trace (dispatch + JSON.stringify, as
 * HTTP answers it), against the `spans.query` list pages the timeline used before; and the Chat tab's
 * first `chat.tracePage` page against the whole `chat.trace` (issue 12). The browser side (request,
 * tree build, first rows, scrolling, first chat message) is printed by test/e2e/trace-big.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { BenchSection } from '../lib/section.js';
import { percentileOf as pct } from '../../src/shared/stats.js';
import { bigTrace } from '../../test/helpers/big-trace.js';

const PROJECT = 'bench/timeline';
const TRACE = 'e'.repeat(31) + '1';
const N = 20_000;

/** Runs `op` `runs` times through dispatch and serializes each answer; returns times (ms) and the answer's size. */
async function measure(ctx: ServiceContext, op: 'traces.timeline' | 'spans.query' | 'chat.trace' | 'chat.tracePage', inputs: Record<string, unknown>[], runs: number) {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    bytes = 0;
    for (const input of inputs) bytes += JSON.stringify(await dispatch(op, input, ctx, { trusted: true })).length;
    times.push(performance.now() - t);
  }
  return { times, bytes };
}

const section: BenchSection = {
  title: `Trace timeline: every span of a ${N.toLocaleString('en')}-span trace`,
  async run({ workDir, print }) {
    const dataDir = path.join(workDir, `timeline-${process.pid}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
    const store = await openStores(dataDir);
    try {
      const report = await importBuffer(store.traces, Buffer.from(JSON.stringify(bigTrace(TRACE, N))), { contentType: 'application/json', projectId: PROJECT });
      print('spans imported', report.spans_imported);
      const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
      await measure(ctx, 'traces.timeline', [{ project_id: PROJECT, trace_id: TRACE }], 3); // warm statement and page caches
      const tl = await measure(ctx, 'traces.timeline', [{ project_id: PROJECT, trace_id: TRACE }], 20);
      print('traces.timeline p50 (ms, incl. JSON.stringify)', pct(tl.times, 0.5).toFixed(0));
      print('traces.timeline p95 (ms)', pct(tl.times, 0.95).toFixed(0));
      print('traces.timeline answer (MB)', (tl.bytes / 1e6).toFixed(2));
      print('traces.timeline bytes per span', (tl.bytes / N).toFixed(0));
      // What the timeline asked before: list rows without details, pages of 10,000 (the operation's maximum).
      const query = { $expr: { $eq: [{ $getField: 'trace_id' }, { $literal: TRACE }] } };
      const pages = [0, 10_000].map((offset) => ({ project_id: PROJECT, query, sort_by: [{ field: 'started_at', direction: 'asc' }], offset, limit: 10_000 }));
      const old = await measure(ctx, 'spans.query', pages, 3);
      print('spans.query list pages, same trace p50 (ms)', pct(old.times, 0.5).toFixed(0));
      print('spans.query list pages answer (MB)', (old.bytes / 1e6).toFixed(2));
      print('spans.query ÷ traces.timeline (time)', (pct(old.times, 0.5) / pct(tl.times, 0.5)).toFixed(1));
      // The Chat tab (issue 12): the first page of chat.tracePage against the whole chat.trace.
      const first = await measure(ctx, 'chat.tracePage', [{ project_id: PROJECT, trace_id: TRACE, limit: 50, include_feedback: true }], 20);
      print('chat.tracePage first 50 messages p50 (ms, incl. JSON.stringify)', pct(first.times, 0.5).toFixed(0));
      print('chat.tracePage first 50 messages p95 (ms)', pct(first.times, 0.95).toFixed(0));
      print('chat.tracePage first page answer (KB)', (first.bytes / 1024).toFixed(1));
      const whole = await measure(ctx, 'chat.trace', [{ project_id: PROJECT, trace_id: TRACE, include_feedback: true }], 5);
      print('chat.trace whole chat p50 (ms)', pct(whole.times, 0.5).toFixed(0));
      print('chat.trace whole chat answer (MB)', (whole.bytes / 1e6).toFixed(2));
    } finally {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
export default section;
