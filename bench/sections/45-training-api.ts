/**
 * Training API under load: while an SFT job trains (real trainer, its own worker thread), a query
 * operation over HTTP (agents.query) must keep answering within 50 ms — printed as p50/p95/max
 * beside the idle figures — and a streamed chat completion (its own inference worker) must keep its
 * first-token and total time within 3× of idle (issue 11).
 */
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { startLoupe } from '../../src/main/serve.js';
import { spanId, traceId } from '../../src/main/service/training/spans.js';
import { exportRequest } from '../../src/main/demo/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import type { BenchSection } from '../lib/section.js';
import { percentileOf } from '../../src/shared/stats.js';

// Percentiles here take p in 0..100 (as the section prints them).
const pct = (xs: number[], p: number) => percentileOf(xs, p / 100);
const ms = (x: number) => `${x.toFixed(1)} ms`;

const section: BenchSection = {
  title: 'Training API: query latency while a job trains, HTTP completion latency',
  async run(ctx) {
    const dataDir = path.join(ctx.workDir, 'training-api');
    fs.rmSync(dataDir, { recursive: true, force: true });
    const loupe = await startLoupe({ dataDir, port: 0, rendererDir: null });
    const auth = { authorization: `Bearer ${loupe.ctx.apiKey}`, 'content-type': 'application/json' };
    const post = (p: string, body: unknown) => fetch(`${loupe.url}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    try {
      // 20 000 spans of 10 agents for agents.query to aggregate.
      const t0 = BigInt(Date.now()) * 1_000_000n;
      for (let b = 0; b < 20; b++) {
        const spans = Array.from({ length: 1000 }, (_, i) => ({
          traceId: traceId(),
          spanId: spanId(),
          name: `invoke_agent agent-${i % 10}`,
          kind: 1,
          startNs: t0 + BigInt(b * 1000 + i) * 1_000_000n,
          endNs: t0 + BigInt(b * 1000 + i + 5) * 1_000_000n,
          attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20 },
        }));
        await importBuffer(loupe.ctx.traces, Buffer.from(JSON.stringify(exportRequest('bench', {}, spans))), { contentType: 'application/json', projectId: 'bench/agents' });
      }
      const query = async () => {
        const t = performance.now();
        const r = await post('/agents/query', { project_id: 'bench/agents' });
        await r.json();
        if (!r.ok) throw new Error(`agents.query: ${r.status}`);
        return performance.now() - t;
      };
      for (let i = 0; i < 5; i++) await query(); // warm-up
      // Event-loop delay of the server's (main) thread: tells blocking apart from CPU contention.
      const idleLag = monitorEventLoopDelay({ resolution: 10 });
      idleLag.enable();
      const idle: number[] = [];
      for (let i = 0; i < 50; i++) idle.push(await query());
      idleLag.disable();

      const model = (await (await post('/v1/preview/models', { project: 'bench', name: 'tiny', base_model: 'loupe-tiny-bytes' })).json()) as { id: string };
      // Streamed completions (32 tokens, median of 9): first token and whole answer, idle and while a job trains.
      const completions = async () => {
        const firsts: number[] = [];
        const fulls: number[] = [];
        for (let k = 0; k < 9; k++) {
          const t = performance.now();
          const r = await post('/v1/chat/completions', { model: `${model.id}:step0`, messages: [{ role: 'user', content: 'Tell me a story.' }], max_tokens: 32, stream: true, seed: 3 });
          const reader = r.body!.getReader();
          let first = 0;
          let text = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            text += new TextDecoder().decode(value);
            if (!first && /"content":"[^"]/.test(text)) first = performance.now() - t;
          }
          firsts.push(first || performance.now() - t);
          fulls.push(performance.now() - t);
        }
        return { first: pct(firsts, 50), full: pct(fulls, 50), firstP95: pct(firsts, 95), fullP95: pct(fulls, 95) };
      };
      await completions(); // warm: the checkpoint loaded in the inference worker
      const idleCompletion = await completions();

      const lines = Array.from({ length: 96 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `Question number ${i}: what is ${i} plus ${i}?` }, { role: 'assistant', content: `The answer is ${2 * i}.` }] }));
      const file = path.join(dataDir, 'bench-sft.jsonl');
      fs.writeFileSync(file, lines.join('\n'));
      const job = (await (await post('/v1/preview/sft-training-jobs', { model_id: model.id, training_data_url: file, config: { batch_size: 8 } })).json()) as { id: string };
      const jobStatus = async () => ((await (await fetch(`${loupe.url}/v1/preview/training-jobs/${job.id}`, { headers: auth })).json()) as { status: string }).status;
      const busy: number[] = [];
      const busyLag = monitorEventLoopDelay({ resolution: 10 });
      busyLag.enable();
      const started = performance.now();
      let status = 'QUEUED';
      while (status === 'QUEUED') status = await jobStatus();
      // Completions first, while the job surely runs; then queries until it ends.
      const busyCompletion = await completions();
      const stillRunning = (await jobStatus()) === 'RUNNING';
      while (status === 'QUEUED' || status === 'RUNNING') {
        if (status === 'RUNNING') busy.push(await query());
        await new Promise((r) => setTimeout(r, 20));
        status = await jobStatus();
      }
      const trainedMs = performance.now() - started;
      busyLag.disable();
      // Shared CI-like machines are noisy: the load average says how much else was running.
      ctx.print('machine load average (1 min) / cores', `${os.loadavg()[0]!.toFixed(1)} / ${os.cpus().length}`);
      ctx.print('agents.query idle p50 / p95', `${ms(pct(idle, 50))} / ${ms(pct(idle, 95))}`);
      ctx.print(`agents.query during SFT (${busy.length} calls) p50`, ms(pct(busy, 50)), '< 50 ms');
      ctx.print('agents.query during SFT p95', ms(pct(busy, 95)), '< 50 ms');
      ctx.print('agents.query during SFT max', ms(Math.max(...busy)));
      const lag = (h: typeof idleLag) => `${ms(h.percentile(50) / 1e6 - 10)} / ${ms(h.percentile(99) / 1e6 - 10)}`;
      ctx.print('main-loop delay idle p50 / p99', lag(idleLag));
      ctx.print('main-loop delay during SFT p50 / p99', lag(busyLag), '< 50 ms');
      ctx.print(`SFT job (${lines.length} examples, 12 steps, loupe-tiny-bytes)`, `${(trainedMs / 1000).toFixed(1)} s (${status})`);
      ctx.print('streamed completion (32 tok) idle: first token / all', `${ms(idleCompletion.first)} / ${ms(idleCompletion.full)}`);
      ctx.print(
        `… during SFT${stillRunning ? '' : ' (job ended before the last)'}: first token / all`,
        `${ms(busyCompletion.first)} / ${ms(busyCompletion.full)}`,
        '≤ 3× idle',
      );
      ctx.print('ratio during SFT / idle: first token / all', `${(busyCompletion.first / idleCompletion.first).toFixed(2)} / ${(busyCompletion.full / idleCompletion.full).toFixed(2)}`, '≤ 3');
      ctx.print('p95 idle → during SFT: first token', `${ms(idleCompletion.firstP95)} → ${ms(busyCompletion.firstP95)}`);
      ctx.print('p95 idle → during SFT: all', `${ms(idleCompletion.fullP95)} → ${ms(busyCompletion.fullP95)}`);
    } finally {
      await loupe.close();
    }
  },
};
export default section;
