/**
 * Built-in trainer figures: completion latency (first token, 64 tokens), SFT and RL step time, peak
 * worker memory, and the main event loop's worst lag while a job trains in the worker. Default model
 * on the default (wasm) backend, plus the test model on the pure-JS cpu backend for comparison.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BASE_MODELS, createBuiltinEngine } from '../../src/main/training/index.js';
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
    ctx.print(`${tag} completion ${got} tokens (full)`, `${ms(full)} (${((got * 1000) / full).toFixed(0)} tokens/s)`);
    if (BASE_MODELS[model]!.contextLength >= 2048) await game2048(ctx, engine, tag, ck0, dir, quick);

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

/**
 * The open client's 2048 example at the sizes it sends (issue 22.14): its first request (309 prompt
 * tokens, max_completion_tokens 128), the same request 20 moves on (history of boards and moves), an
 * RL step on 8 first moves, and one SFT step on a sequence as long as the context.
 */
async function game2048(ctx: BenchContext, engine: ReturnType<typeof createBuiltinEngine>, tag: string, ck0: string, dir: string, quick: boolean): Promise<void> {
  const sys = `You are an excellent 2048 player. Always choose the move most likely to lead to combine cells to eventually reach the number 2048. Optional moves are 'left', 'right', 'up', 'down'. Return your move as an XML object with a single property 'move', like so: <move>left</move>`;
  const board = '_|_|_|_\n_|2|_|_\n_|_|_|_\n_|_|2|_\n';
  const board2 = ' 2| 4| _| _\n 8|16| _| 2\n _| 2| _| _\n 4| _| _| 2\n';
  const first: ChatMessage[] = [{ role: 'system', content: sys }, { role: 'user', content: board }];
  const later: ChatMessage[] = [...first];
  for (let i = 0; i < 20; i++) later.push({ role: 'assistant', content: '<move>left</move>' }, { role: 'user', content: board2 });
  for (const [label, messages] of [['first request (309 + 128 tokens)', first], ['move 21 (1,588 + 128 tokens)', later]] as const) {
    // The seed whose answer runs the full 128 tokens, so the figure is for exactly what is asked.
    for (let seed = 1; seed < 10; seed++) {
      let firstTok = 0;
      const t0 = performance.now();
      const [c] = await engine.complete({ checkpointDir: ck0, messages: [...messages], maxTokens: 128, seed, onToken: () => (firstTok ||= performance.now() - t0) });
      const total = performance.now() - t0;
      if (c!.token_ids.length < 128 && seed < 9) continue;
      const n = c!.token_ids.length;
      ctx.print(`${tag} 2048 ${label}: first token / ${n} tokens`, `${ms(firstTok)} / ${ms(total)} (${((n * 1000) / total).toFixed(1)} tokens/s)`);
      break;
    }
  }
  const group = await engine.complete({ checkpointDir: ck0, messages: first, maxTokens: 128, n: 8, seed: 3 });
  const samples: RlSample[] = group.map((g, i) => ({ prompt: first, completionTokenIds: g.token_ids, sampledLogprobs: g.logprobs.map((l) => l.logprob), advantage: i % 2 ? 1 : -1 }));
  let t = performance.now();
  await engine.rl({ baseCheckpointDir: ck0, outCheckpointDir: path.join(dir, '2048-rl'), samples, loss: 'cispo', onStep: () => {} });
  const tokens = samples.reduce((a, s) => a + 309 + s.completionTokenIds.length, 0);
  ctx.print(`${tag} 2048 RL step, 8 first moves (${tokens} tokens)`, `${ms(performance.now() - t)} (${((tokens * 1000) / (performance.now() - t)).toFixed(0)} tokens/s)`);
  if (quick) return;
  const long = [{ messages: [...later, ...later.slice(1, 10), { role: 'assistant' as const, content: '<move>up</move>' }] }];
  const len = long[0]!.messages.reduce((a, m) => a + Buffer.byteLength(String(m.content)) + 2, 0);
  t = performance.now();
  await engine.sft({ baseCheckpointDir: ck0, outCheckpointDir: path.join(dir, '2048-sft'), examples: long, batchSize: 1, learningRate: 1e-3, onStep: () => {} });
  ctx.print(`${tag} SFT step, one ${Math.min(len, 2048)}-token sequence`, ms(performance.now() - t));
  const [mem] = await engine.memory();
  ctx.print(`${tag} job worker peak RSS after it (process-wide)`, mib(mem!.maxRss));
}

const section: BenchSection = {
  title: 'Built-in trainer (TF.js in a worker thread)',
  async run(ctx) {
    const dir = path.join(ctx.workDir, 'trainer');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    await measure(ctx, 'loupe-tiny-bytes-2k', 'wasm', dir, false);
    await measure(ctx, 'loupe-tiny-bytes', 'wasm', dir, false);
    await measure(ctx, 'loupe-test-bytes', 'wasm', dir, false);
    await measure(ctx, 'loupe-test-bytes', 'cpu', dir, true);
    fs.rmSync(dir, { recursive: true, force: true });
  },
};
export default section;
