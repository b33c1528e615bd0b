/**
 * The learning-rate curve behind Loupe's scaling of the client's rates (docs/training.md): the
 * built-in test model trained at a range of rates — the hosted defaults (RL 5e-6, SFT 5e-5) times
 * 1…2000 — on the tasks of the client replay test. Held-out scores after a fixed budget:
 * - SFT: answer a word's length (30 steps of 8) — greedy exact match on 48 held-out words;
 *   and copy a word's first letter (x or z) — the same budget, sampled at temperature 1.
 * - RL: short/long words ("S"/"L", one token) after a warm-up on 576 words with labels 70% right —
 *   mean reward of 8 short + 8 long held-out words × 16 samples after 4, 8 and 12 rounds of 16 prompts
 *   × 8 rollouts, CISPO, normalized advantages; three seeds per rate.
 * Explicit only (`npm run bench -- training-lr`): about 15 minutes on two cores.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinEngine } from '../../src/main/training/index.js';
import type { ChatMessage, RlSample } from '../../src/main/training/engine.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import type { BenchSection } from '../lib/section.js';

const L = 'abcdefghijklmnopqrstuvwxyz';
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

const section: BenchSection = {
  title: 'Training: held-out score against the learning rate (the curve behind the client-rate scaling)',
  explicitOnly: true,
  async run(ctx) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-lr-'));
    const engine = createBuiltinEngine();
    const ck = (n: string) => path.join(dir, n);
    await engine.initCheckpoint('loupe-test-bytes', ck('init'));
    ctx.print('machine load average (1 min) / cores', `${os.loadavg()[0]!.toFixed(1)} / ${os.cpus().length}`);
    try {
      // ---- SFT: 30 steps of 8 at each rate.
      for (const lr of process.env.LOUPE_BENCH_RL_RATES ? [] : [5e-5, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]) {
        const rand = seededRandom(11);
        const word = (n: number, first?: string) => (first ?? L[Math.floor(rand() * 26)]!) + Array.from({ length: n - 1 }, () => L[Math.floor(rand() * 26)]).join('');
        const lengthTrain = Array.from({ length: 240 }, (_, i) => word(3 + (i % 6)));
        await engine.sft({ baseCheckpointDir: ck('init'), outCheckpointDir: ck(`len-${lr}`), examples: lengthTrain.map((w) => ({ messages: [...user(w), { role: 'assistant', content: String(w.length) }] })), batchSize: 8, learningRate: lr, onStep: () => {} });
        let exact = 0;
        const held = Array.from({ length: 48 }, (_, i) => word(3 + (i % 6)));
        for (const w of held) {
          const [c] = await engine.complete({ checkpointDir: ck(`len-${lr}`), messages: user(w), temperature: 0, maxTokens: 2 });
          if (c!.text === String(w.length)) exact++;
        }
        const copyTrain = Array.from({ length: 240 }, (_, i) => word(5, i % 2 ? 'x' : 'z'));
        await engine.sft({ baseCheckpointDir: ck('init'), outCheckpointDir: ck(`copy-${lr}`), examples: copyTrain.map((w) => ({ messages: [...user(w), { role: 'assistant', content: w[0]! }] })), batchSize: 8, learningRate: lr, onStep: () => {} });
        let copied = 0;
        let n = 0;
        for (let i = 0; i < 8; i++) {
          const w = word(5, i % 2 ? 'x' : 'z');
          for (const c of await engine.complete({ checkpointDir: ck(`copy-${lr}`), messages: user(w), temperature: 1, maxTokens: 2, n: 32, seed: 100 + i })) {
            copied += c.text.startsWith(w[0]!) ? 1 : 0;
            n++;
          }
        }
        ctx.print(`SFT lr ${lr} (client ${(lr / 60).toExponential(1)}): length exact / first-letter`, `${exact}/${held.length} / ${(copied / n).toFixed(2)}`);
      }

      // ---- RL: the same warm-up, then 12 rounds at each rate.
      const rand0 = seededRandom(5);
      const lenWord = (r: () => number) => Array.from({ length: 3 + Math.floor(r() * 6) }, () => L[Math.floor(r() * 26)]).join('');
      const answer = (w: string) => (w.length <= 5 ? 'S' : 'L');
      const warm = Array.from({ length: 576 }, () => {
        const w = lenWord(rand0);
        const right = rand0() < 0.7;
        return { messages: [...user(w), { role: 'assistant' as const, content: right === (w.length <= 5) ? 'S' : 'L' }] };
      });
      await engine.sft({ baseCheckpointDir: ck('init'), outCheckpointDir: ck('warm'), examples: warm, batchSize: 8, learningRate: 3e-3, onStep: () => {} });
      const heldOut = Array.from({ length: 16 }, (_, i) => Array.from({ length: i < 8 ? 3 + (i % 3) : 6 + (i % 3) }, () => L[Math.floor(rand0() * 26)]).join(''));
      const score = async (d: string) => {
        let s = 0;
        let n = 0;
        for (const [i, w] of heldOut.entries()) {
          for (const c of await engine.complete({ checkpointDir: d, messages: user(w), temperature: 1, maxTokens: 1, n: 16, seed: 500 + i })) {
            s += c.text.startsWith(answer(w)) ? 1 : 0;
            n++;
          }
        }
        return s / n;
      };
      ctx.print('RL warm-up held-out reward', (await score(ck('warm'))).toFixed(2));
      // LOUPE_BENCH_RL_RATES=5e-6,1e-3 runs only those rates.
      const rates = process.env.LOUPE_BENCH_RL_RATES?.split(',').map(Number) ?? [5e-6, 1e-4, 2.5e-4, 5e-4, 1e-3, 2e-3, 4e-3];
      for (const lr of rates) {
        const runs: string[] = [];
        for (const seed of [99, 7, 3]) {
          const rand = seededRandom(seed);
          let cur = ck('warm');
          const marks: string[] = [];
          for (let round = 1; round <= 12; round++) {
            const samples: RlSample[] = [];
            for (let p = 0; p < 16; p++) {
              const w = lenWord(rand);
              const out = await engine.complete({ checkpointDir: cur, messages: user(w), temperature: 1, maxTokens: 1, n: 8, seed: 1000 * round + p + seed });
              const rw = out.map((c) => (c.text.startsWith(answer(w)) ? 1 : 0));
              const mean = rw.reduce((a: number, b: number) => a + b, 0) / rw.length;
              const std = Math.sqrt(rw.reduce((a: number, x) => a + (x - mean) ** 2, 0) / rw.length);
              out.forEach((c, i) => {
                const adv = (rw[i]! - mean) / (std + 1e-6);
                if (adv !== 0) samples.push({ prompt: user(w), completionTokenIds: c.token_ids, sampledLogprobs: c.logprobs.map((t) => t.logprob), advantage: adv });
              });
            }
            const next = ck(`rl-${lr}-${seed}-${round}`);
            await engine.rl({ baseCheckpointDir: cur, outCheckpointDir: next, samples, loss: 'cispo', learningRate: lr, onStep: () => {} });
            cur = next;
            if (round % 4 === 0) marks.push((await score(cur)).toFixed(2));
          }
          runs.push(marks.join('/'));
        }
        ctx.print(`RL lr ${lr} (client ${(lr / 200).toExponential(1)}): reward after 4/8/12 rounds, 3 seeds`, runs.join('  '));
      }
    } finally {
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default section;
