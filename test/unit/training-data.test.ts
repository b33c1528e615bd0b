/**
 * Pure parts of training: RL advantages and samples (and why nothing is trainable), learning-rate
 * scaling, the experimental_config schema, safe SFT file reading, split metrics.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ExperimentalConfig, TrajectoryGroup } from '../../src/shared/contract/training.js';
import { advantages, buildRlSamples as build, nothingTrainable, rlTrainingOrder } from '../../src/main/training/rl-samples.js';
import { readSftFile } from '../../src/main/training/sft-file.js';
import { appliedRate } from '../../src/main/service/training/learning-rate.js';
import { splitMetrics } from '../../src/main/service/training/rollouts.js';
import { parseRemoteBase } from '../../src/main/service/training/remote.js';

const DEFAULTS = { normalize: true, allowWithoutLogprobs: false };
const buildRlSamples = (groups: TrajectoryGroup[], opts = DEFAULTS) => build(groups, opts).samples;

const choice = (text: string, ids: number[]) => ({
  finish_reason: 'stop',
  index: 0,
  message: { role: 'assistant', content: text },
  logprobs: { content: ids.map((id) => ({ token: `token_id:${id}`, logprob: -0.5 })) },
});
const group = (rewards: number[], withLogprobs = true) =>
  TrajectoryGroup.parse({
    trajectories: rewards.map((r) => ({
      messages_and_choices: [{ role: 'user', content: 'q' }, withLogprobs ? choice('ab', [97, 98, 260]) : { role: 'assistant', content: 'ab' }],
      reward: r,
      metrics: { correct: r > 0 },
    })),
  });

describe('RL samples', () => {
  test('advantages are group-relative and normalised by the group std', () => {
    const a = advantages([1, 0, 0, 1], true);
    expect(a.map((x) => Math.round(x * 1e4) / 1e4)).toEqual([1, -1, -1, 1]);
    expect(advantages([3, 1], false)).toEqual([1, -1]);
  });

  test('zero-advantage trajectories are dropped; choices with logprobs become samples with their token ids', () => {
    const samples = buildRlSamples([group([1, 0, 0.5]), group([2, 2])]);
    expect(samples).toHaveLength(2); // the 0.5 (mean) and both of the all-equal group are dropped
    expect(samples[0]!.completionTokenIds).toEqual([97, 98, 260]);
    expect(samples[0]!.sampledLogprobs).toEqual([-0.5, -0.5, -0.5]);
    expect(samples[0]!.prompt).toEqual([{ role: 'user', content: 'q' }]);
    expect(samples[0]!.advantage).toBeGreaterThan(0);
    expect(samples[1]!.advantage).toBeLessThan(0);
  });

  test('assistant messages without logprobs train only when allow_training_without_logprobs', () => {
    expect(buildRlSamples([group([1, 0], false)])).toHaveLength(0);
    const s = buildRlSamples([group([1, 0], false)], { ...DEFAULTS, allowWithoutLogprobs: true });
    expect(s).toHaveLength(2);
    expect(s[0]!.completionTokenIds).toEqual([97, 98, 260]);
  });

  test('choices that cannot train are counted and explained; equal rewards are not "nothing trainable"', () => {
    const noLogprobs = build([group([1, 0], false)], DEFAULTS);
    expect(noLogprobs.stats).toEqual({ withAdvantage: 2, choicesWithoutLogprobs: 0, foreignChoices: 0 });
    const chosen = TrajectoryGroup.parse({
      trajectories: [1, 0].map((r) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, { ...choice('ab', []), logprobs: null }], reward: r })),
    });
    const r = build([chosen], DEFAULTS);
    expect(r.samples).toHaveLength(0);
    expect(r.stats.choicesWithoutLogprobs).toBe(2);
    expect(nothingTrainable(r.stats)).toMatch(/2 choice\(s\) carry no logprobs .*allow_training_without_logprobs/);
    const foreign = TrajectoryGroup.parse({
      trajectories: [1, 0].map((r) => ({
        messages_and_choices: [{ role: 'user', content: 'q' }, { ...choice('hi', []), logprobs: { content: [{ token: 'hi', logprob: -1 }] } }],
        reward: r,
      })),
    });
    expect(nothingTrainable(build([foreign], DEFAULTS).stats)).toMatch(/2 choice\(s\) carry tokens that are not this model's token_id/);
    expect(build([group([2, 2])], DEFAULTS).stats.withAdvantage).toBe(0);
  });
});

describe('learning rates and experimental_config', () => {
  test("the client's rate is read relative to the hosted default; loupe_learning_rate stays literal", () => {
    expect(appliedRate('rl', 5e-6, undefined)).toEqual({ applied: expect.closeTo(1e-3, 12), how: 'scaled', sent: 5e-6 });
    expect(appliedRate('rl', 1e-5, undefined).applied).toBeCloseTo(2e-3, 12);
    expect(appliedRate('sft', 5e-5, undefined).applied).toBeCloseTo(3e-3, 12);
    expect((appliedRate('sft', [5e-5, 1e-4], undefined).applied as number[]).map((x) => +x.toPrecision(6))).toEqual([2e-3, 4e-3]); // [3e-3, 6e-3] scaled, then capped at a 4e-3 peak keeping its shape (issue 22.14)
    expect(appliedRate('rl', 5e-6, 2e-4)).toEqual({ applied: 2e-4, how: 'literal', sent: 5e-6 });
    expect(appliedRate('sft', null, undefined)).toEqual({ applied: 3e-3, how: 'default', sent: null });
  });

  test('the open client\'s keys are typed: an unknown loss or a non-numeric rate is refused, newer keys pass', () => {
    expect(ExperimentalConfig.safeParse({ loss_fn: 'cispo', learning_rate: 5e-6, epsilon: null, future_key: 1 }).success).toBe(true);
    const loss = ExperimentalConfig.safeParse({ loss_fn: 'grpo' });
    expect(loss.success).toBe(false);
    expect(loss.error!.issues[0]!.path).toEqual(['loss_fn']);
    expect(ExperimentalConfig.safeParse({ learning_rate: 'fast' }).error!.issues[0]!.path).toEqual(['learning_rate']);
    expect(ExperimentalConfig.safeParse({ loss_fn: 'cispo', ppo: true }).error!.issues[0]!.path).toEqual(['ppo']);
  });
});

describe('SFT data files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-sft-'));
  const write = (name: string, lines: string[]) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, lines.join('\n'));
    return f;
  };
  const ok = JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] });

  test('reads {messages, tools} lines, skipping blank ones', async () => {
    expect(await readSftFile(write('ok.jsonl', [ok, '', ok]), 'ok.jsonl')).toHaveLength(2);
  });

  test('a bad line names the file, the line number and the field — never the content', async () => {
    const f = write('bad.jsonl', [ok, ok, JSON.stringify({ messages: [{ role: 'robot', content: 'x' }] })]);
    await expect(readSftFile(f, 'bad.jsonl')).rejects.toThrow(/bad\.jsonl line 3: messages\.0\.role/);
    const secret = 'root:$6$SECRETHASH:19000:0:99999:7:::';
    const g = write('notjson.jsonl', [ok, secret]);
    const err = await readSftFile(g, 'shadow').catch((e: Error) => e.message);
    expect(err).toMatch(/^shadow line 2: not valid JSON( at character \d+)?$/);
    expect(err).not.toContain('SECRET');
    const h = write('noassistant.jsonl', [JSON.stringify({ messages: [{ role: 'user', content: 'q' }] })]);
    await expect(readSftFile(h, 'h')).rejects.toThrow(/line 1: messages: no assistant message/);
  });

  test('only regular files within the cap are read: a named pipe, a device, a directory are refused at once', async () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const t = Date.now();
    await expect(readSftFile(fifo, 'pipe')).rejects.toThrow('training data pipe is a named pipe; only regular files are read');
    expect(Date.now() - t).toBeLessThan(2000); // opened without blocking on a writer
    await expect(readSftFile('/dev/zero', '/dev/zero')).rejects.toThrow('is a device');
    await expect(readSftFile(dir, 'dir')).rejects.toThrow('is a directory');
    await expect(readSftFile(write('big.jsonl', [ok, ok]), 'big', 10)).rejects.toThrow(/is \d+ bytes; the limit is 10 bytes/);
    await expect(readSftFile(path.join(dir, 'missing.jsonl'), 'missing')).rejects.toThrow('cannot read training data missing: no such file');
  });
});

describe('/log metrics', () => {
  test('split reward, std dev, exception rate and averaged trajectory metrics', () => {
    const g = group([1, 0, 0, 1]);
    g.exceptions = [{ message: 'boom' }];
    const m = splitMetrics('train', [g]);
    expect(m['train/reward']).toBe(0.5);
    expect(m['train/reward_std_dev']).toBe(0.5);
    expect(m['train/exception_rate']).toBe(0.2);
    expect(m['train/correct']).toBe(0.5);
  });
});

test('remote base models are remote:<backend>/<base model>', () => {
  expect(parseRemoteBase('remote:gpu-box/loupe-test-bytes')).toEqual({ backend: 'gpu-box', base: 'loupe-test-bytes' });
  expect(parseRemoteBase('remote:b/Qwen/Qwen2.5-7B')).toEqual({ backend: 'b', base: 'Qwen/Qwen2.5-7B' });
  expect(parseRemoteBase('loupe-test-bytes')).toBeNull();
});

test('additional histories train with their trajectory advantage', () => {
  const g = TrajectoryGroup.parse({
    trajectories: [
      { messages_and_choices: [{ role: 'user', content: 'q' }, choice('a', [97, 260])], reward: 1, additional_histories: [{ messages_and_choices: [{ role: 'user', content: 'sub' }, choice('b', [98, 260])], tools: null }] },
      { messages_and_choices: [{ role: 'user', content: 'q' }, choice('c', [99, 260])], reward: 0 },
    ],
  });
  const s = buildRlSamples([g]);
  expect(s.map((x) => x.completionTokenIds[0])).toEqual([97, 98, 99]);
  expect(s[1]!.prompt).toEqual([{ role: 'user', content: 'sub' }]);
  expect(s[1]!.advantage).toBe(s[0]!.advantage);
});

test('RL samples train in a seeded order that mixes groups: a permutation, the same on every run, each batch of 8 holding several groups', () => {
  // 16 groups × 8 rollouts, in submission order (a batch of 8 in that order would be one group).
  const samples = Array.from({ length: 128 }, (_, i) => ({ group: Math.floor(i / 8), i }));
  const order = rlTrainingOrder(samples);
  expect(order.map((s) => s.i).sort((a, b) => a - b)).toEqual(samples.map((s) => s.i));
  expect(rlTrainingOrder(samples)).toEqual(order);
  expect(samples.map((s) => s.i)).toEqual(Array.from({ length: 128 }, (_, i) => i)); // the input is left as it was
  for (let b = 0; b < 128; b += 8) expect(new Set(order.slice(b, b + 8).map((s) => s.group)).size).toBeGreaterThanOrEqual(3);
});
