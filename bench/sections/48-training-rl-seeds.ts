/**
 * How often RL on the client replay test's task succeeds: the test's own loop (same word draws, same
 * seeds, same scoring as test/http/training-art-replay.test.ts, with engine calls in place of HTTP — the
 * test gives the identical numbers for its seed) over warm-up data seeds × rollout seeds. Each run: SFT
 * warm-up (576 words, labels 70% right, 3e-3), 6 rounds of 16 words × 8 rollouts (CISPO, normalized
 * advantages, the rate the client's 5e-6 maps to), held-out 8 short + 8 long words × 16 samples before and
 * after, pass = one-sided z > 3.09. Explicit only (`npm run bench -- training-rl-seeds`): ~20 s per run
 * on a quiet machine. LOUPE_BENCH_RL_DATA (default 20261123,21,…,29), LOUPE_BENCH_RL_SEEDS (1,2),
 * LOUPE_BENCH_RL_LR (the working rate) change the grid.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinEngine } from '../../src/main/training/index.js';
import type { ChatMessage } from '../../src/main/training/engine.js';
import { BUILTIN_RL_LR } from '../../src/main/training/config.js';
import { buildRlSamples } from '../../src/main/training/rl-samples.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import type { TrajectoryGroup } from '../../src/shared/contract/training.js';
import type { BenchSection } from '../lib/section.js';

const L = 'abcdefghijklmnopqrstuvwxyz';
const user = (content: string): ChatMessage => ({ role: 'user', content });
const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map(Number) : d);

const section: BenchSection = {
  title: 'Training: RL on the client replay task over data and rollout seeds (how often z > 3.09)',
  explicitOnly: true,
  async run(ctx) {
    const dataSeeds = list(process.env.LOUPE_BENCH_RL_DATA, [20261123, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    const rolloutSeeds = list(process.env.LOUPE_BENCH_RL_SEEDS, [1, 2]);
    const lr = Number(process.env.LOUPE_BENCH_RL_LR ?? BUILTIN_RL_LR);
    ctx.print('machine load average (1 min) / cores', `${os.loadavg()[0]!.toFixed(1)} / ${os.cpus().length}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-rl-seeds-'));
    const engine = createBuiltinEngine();
    const ck = (n: string) => path.join(dir, n);
    let passed = 0;
    let runs = 0;
    try {
      await engine.initCheckpoint('loupe-test-bytes', ck('init'));
      for (const dataSeed of dataSeeds) {
        // The test's draws, in its order.
        const rand = seededRandom(dataSeed);
        const word = (len: number) => Array.from({ length: len }, () => L[Math.floor(rand() * 26)]).join('');
        const answer = (w: string) => (w.length <= 5 ? 'S' : 'L');
        const prompts = (n: number) => Array.from({ length: n }, () => word(3 + Math.floor(rand() * 6)));
        const reward = (p: string, t: string) => (t.startsWith(answer(p)) ? 1 : 0);
        const warm = prompts(576).map((w) => ({ messages: [user(w), { role: 'assistant' as const, content: rand() < 0.7 ? answer(w) : answer(w) === 'S' ? 'L' : 'S' }] }));
        await engine.sft({ baseCheckpointDir: ck('init'), outCheckpointDir: ck(`warm-${dataSeed}`), examples: warm, batchSize: 8, learningRate: 3e-3, onStep: () => {} });
        const heldOut = Array.from({ length: 16 }, (_, i) => word(i < 8 ? 3 + (i % 3) : 6 + (i % 3)));
        const score = async (d: string) => {
          let s = 0;
          for (const [i, w] of heldOut.entries()) for (const c of await engine.complete({ checkpointDir: d, messages: [user(w)], maxTokens: 1, n: 16, seed: 500 + i })) s += reward(w, c.text);
          return s / 256;
        };
        const before = await score(ck(`warm-${dataSeed}`));
        const rounds = Array.from({ length: 6 }, () => prompts(16));
        for (const seed of rolloutSeeds) {
          let cur = ck(`warm-${dataSeed}`);
          for (const [k, words] of rounds.entries()) {
            const groups: TrajectoryGroup[] = [];
            for (const [p, w] of words.entries()) {
              const trajectories = await Promise.all(
                Array.from({ length: 8 }, async (_, j) => {
                  const [c] = await engine.complete({ checkpointDir: cur, messages: [user(w)], maxTokens: 1, seed: seed * 1_000_000 + 1000 * k + 8 * p + j });
                  return { messages_and_choices: [user(w), { finish_reason: c!.finish_reason, index: 0, message: { role: 'assistant', content: c!.text }, logprobs: { content: c!.logprobs } }], reward: reward(w, c!.text) };
                }),
              );
              groups.push({ trajectories } as unknown as TrajectoryGroup);
            }
            const { samples } = buildRlSamples(groups, { normalize: true, allowWithoutLogprobs: false });
            const next = ck(`rl-${dataSeed}-${seed}-${k}`);
            await engine.rl({ baseCheckpointDir: cur, outCheckpointDir: next, samples, loss: 'cispo', learningRate: lr, onStep: () => {} });
            cur = next;
          }
          const after = await score(cur);
          const pooled = (before + after) / 2;
          const z = (after - before) / Math.sqrt(pooled * (1 - pooled) * (2 / 256));
          runs++;
          if (z > 3.09) passed++;
          ctx.print(`data ${dataSeed}, rollout seed ${seed}: held-out reward before → after, z`, `${before.toFixed(3)} → ${after.toFixed(3)}, z ${z.toFixed(2)}${z > 3.09 ? '' : ' (FAIL)'}`);
        }
      }
      ctx.print(`runs with z > 3.09 at rate ${lr}`, `${passed} of ${runs}`);
    } finally {
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default section;
