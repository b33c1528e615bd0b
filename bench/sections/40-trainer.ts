/**
 * Built-in trainer figures: completion latency (first token, 64 tokens), SFT and RL step time, peak
 * worker memory, and the main event loop's worst lag while a job trains in the worker. Default model
 * on the default (wasm) backend, plus the test model on the pure-JS cpu backend for comparison.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createBuiltinEngine } from '../../src/main/training/index.js';
import type { ChatMessage, RlSample } from '../../src/main/training/engine.js';
import type { BenchContext, BenchSection } from '../lib/section.js';

const ms = (x: number) => `${x.toFixed(1)} ms`;
const mib = (x: number) => `${(x / 2 ** 20).toFixed(0)} MiB`;
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

async function measure(ctx: BenchContext, model: string, backend: 'wasm' | 'cpu', dir: string, quick: boolean): Promise<void> {
  process.env.LOUPE_TRAINER_BACKEND = backend; // read by the worker when it starts
  const engine = createBuiltinEngine();
  const tag = `${model} [${backend}]`;
  try {
    await engine.ping();
    const ck0 = path.join(dir, `${model}-${backend}-0`);
    await engine.initCheckpoint(model, ck0);
    const maxTokens = quick ? 16 : 64;
    await engine.complete({ checkpointDir: ck0, messages: user('warm up'), maxTokens: 2, seed: 1 }); // load + cache
    // A step-0 model may sample its end marker early; take the first seed whose completion runs the
    // full length, so the figure is for exactly maxTokens tokens.
    let first = 0;
    let full = 0;
    let got = 0;
    for (let seed = 5; seed < 15 && got < maxTokens; seed++) {
      first = 0;
      const t0 = performance.now();
      const [c] = await engine.complete({
        checkpointDir: ck0,
        messages: user('Write a short story about a lighthouse.'),
        maxTokens,
        seed,
        onToken: () => (first ||= performance.now() - t0),
      });
      full = performance.now() - t0;
      got = c!.token_ids.length;
    }
    ctx.print(`${tag} completion first token`, ms(first));
    ctx.print(`${tag} completion ${got} tokens (full)`, ms(full));

    const examples = Array.from({ length: quick ? 8 : 32 }, (_, i) => ({
      messages: [...user(`Question number ${i}: what is ${i} plus ${i}?`), { role: 'assistant' as const, content: `The answer is ${2 * i}.` }],
    }));
    const stamps: number[] = [];
    let lag = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - last - 10);
      last = now;
    }, 10);
    let t = performance.now();
    await engine.sft({
      baseCheckpointDir: ck0,
      outCheckpointDir: path.join(dir, `${model}-${backend}-sft`),
      examples,
      batchSize: 8,
      learningRate: 1e-3,
      onStep: () => {
        stamps.push(performance.now() - t);
        t = performance.now();
      },
    });
    clearInterval(timer);
    ctx.print(`${tag} SFT step (batch 8, ~45 tokens)`, ms(stamps.reduce((a, b) => a + b, 0) / stamps.length));
    ctx.print(`${tag} main-loop worst lag during SFT`, ms(lag), '< 50 ms');

    const samples: RlSample[] = [];
    const group = await engine.complete({ checkpointDir: ck0, messages: user('Say something.'), maxTokens: 32, n: quick ? 8 : 16, seed: 9 });
    group.forEach((g, i) => samples.push({ prompt: user('Say something.'), completionTokenIds: g.token_ids, sampledLogprobs: g.logprobs.map((l) => l.logprob), advantage: i % 2 ? 1 : -1 }));
    const rlStamps: number[] = [];
    t = performance.now();
    await engine.rl({
      baseCheckpointDir: ck0,
      outCheckpointDir: path.join(dir, `${model}-${backend}-rl`),
      samples,
      loss: 'cispo',
      onStep: () => {
        rlStamps.push(performance.now() - t);
        t = performance.now();
      },
    });
    ctx.print(`${tag} RL step (8 samples, ≤32 tokens)`, ms(rlStamps.reduce((a, b) => a + b, 0) / rlStamps.length));
    const [mem] = await engine.memory();
    ctx.print(`${tag} worker peak RSS (process-wide)`, mib(mem!.maxRss));
    ctx.print(`${tag} worker heap / TF.js tensors`, `${mib(mem!.heapUsed)} / ${mib(mem!.tfBytes)}`);
  } finally {
    await engine.close();
    delete process.env.LOUPE_TRAINER_BACKEND;
  }
}

const section: BenchSection = {
  title: 'Built-in trainer (TF.js in a worker thread)',
  async run(ctx) {
    const dir = path.join(ctx.workDir, 'trainer');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    await measure(ctx, 'loupe-tiny-bytes', 'wasm', dir, false);
    await measure(ctx, 'loupe-test-bytes', 'wasm', dir, false);
    await measure(ctx, 'loupe-test-bytes', 'cpu', dir, true);
    fs.rmSync(dir, { recursive: true, force: true });
  },
};
export default section;
