/** Pure parts of the training service: RL advantages and samples, SFT file checks, split metrics. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { TrajectoryGroup } from '../../src/shared/contract/training.js';
import { advantages, buildRlSamples, rlOptions } from '../../src/main/service/training/rl-samples.js';
import { readSftExamples } from '../../src/main/service/training/sft-data.js';
import { splitMetrics } from '../../src/main/service/training/log.js';
import { parseRemoteBase } from '../../src/main/service/training/remote.js';

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
    const samples = buildRlSamples([group([1, 0, 0.5]), group([2, 2])], rlOptions({}));
    expect(samples).toHaveLength(2); // the 0.5 (mean) and both of the all-equal group are dropped
    expect(samples[0]!.completionTokenIds).toEqual([97, 98, 260]);
    expect(samples[0]!.sampledLogprobs).toEqual([-0.5, -0.5, -0.5]);
    expect(samples[0]!.prompt).toEqual([{ role: 'user', content: 'q' }]);
    expect(samples[0]!.advantage).toBeGreaterThan(0);
    expect(samples[1]!.advantage).toBeLessThan(0);
  });

  test('assistant messages without logprobs train only when allow_training_without_logprobs', () => {
    expect(buildRlSamples([group([1, 0], false)], rlOptions({}))).toHaveLength(0);
    const s = buildRlSamples([group([1, 0], false)], rlOptions({ allow_training_without_logprobs: true }));
    expect(s).toHaveLength(2);
    expect(s[0]!.completionTokenIds).toEqual([97, 98, 260]);
  });

  test('loss and normalisation follow experimental_config', () => {
    expect(rlOptions({}).loss).toBe('cispo');
    expect(rlOptions({ ppo: true }).loss).toBe('ppo');
    expect(rlOptions({ loss_fn: 'ppo' }).loss).toBe('ppo');
    expect(rlOptions({ scale_rewards: false }).normalize).toBe(false);
    expect(rlOptions({ learning_rate: 1e-3 }).learningRate).toBe(1e-3);
  });
});

describe('SFT data', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-sft-'));
  const write = (name: string, lines: string[]) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, lines.join('\n'));
    return f;
  };
  const ok = JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] });

  test('reads {messages, tools} lines from a file:// URL or an absolute path', () => {
    const f = write('ok.jsonl', [ok, '', ok]);
    expect(readSftExamples(pathToFileURL(f).href)).toHaveLength(2);
    expect(readSftExamples(f)).toHaveLength(2);
  });

  test('a bad line names the file, the line number and the field', () => {
    const f = write('bad.jsonl', [ok, ok, JSON.stringify({ messages: [{ role: 'robot', content: 'x' }] })]);
    expect(() => readSftExamples(f)).toThrow(/bad\.jsonl line 3: messages\.0\.role/);
    const g = write('notjson.jsonl', [ok, '{oops']);
    expect(() => readSftExamples(g)).toThrow(/notjson\.jsonl line 2: not valid JSON/);
    const h = write('noassistant.jsonl', [JSON.stringify({ messages: [{ role: 'user', content: 'q' }] })]);
    expect(() => readSftExamples(h)).toThrow(/line 1: messages: no assistant message/);
  });

  test('relative paths and missing files are refused with the reason', () => {
    expect(() => readSftExamples('data.jsonl')).toThrow(/file:\/\/ URL or an absolute path/);
    expect(() => readSftExamples(path.join(dir, 'missing.jsonl'))).toThrow(/cannot read training data .*ENOENT/);
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
  const s = buildRlSamples([g], rlOptions({}));
  expect(s.map((x) => x.completionTokenIds[0])).toEqual([97, 98, 99]);
  expect(s[1]!.prompt).toEqual([{ role: 'user', content: 'sub' }]);
  expect(s[1]!.advantage).toBe(s[0]!.advantage);
});
