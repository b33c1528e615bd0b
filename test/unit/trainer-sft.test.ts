import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinEngine, type BuiltinEngine } from '../../src/main/training/index.js';
import type { StepMetrics } from '../../src/main/training/engine.js';
import { QA, TEST_MODEL, qaExamples, tempRoot, user } from './trainer-fixtures.js';

describe('built-in trainer: SFT', () => {
  let engine: BuiltinEngine;
  let root: string;
  const ck = (name: string) => path.join(root, name);

  beforeAll(async () => {
    engine = createBuiltinEngine();
    root = tempRoot('sft');
    await engine.initCheckpoint(TEST_MODEL, ck('step0'));
  });
  afterAll(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes a step-0 checkpoint: model.json, weights.bin, meta.json; same seed → same weights', async () => {
    for (const f of ['model.json', 'weights.bin', 'meta.json']) expect(fs.existsSync(path.join(ck('step0'), f))).toBe(true);
    const meta = JSON.parse(fs.readFileSync(path.join(ck('step0'), 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ baseModel: TEST_MODEL, step: 0 });
    await engine.initCheckpoint(TEST_MODEL, ck('step0-again'));
    expect(fs.readFileSync(path.join(ck('step0-again'), 'weights.bin')).equals(fs.readFileSync(path.join(ck('step0'), 'weights.bin')))).toBe(true);
    expect(engine.baseModels()).toContain('loupe-tiny-bytes');
    await expect(engine.initCheckpoint('gpt-17', ck('nope'))).rejects.toThrow(/unknown base model "gpt-17".*loupe-tiny-bytes/);
  });

  it('lowers the loss on 8 Q→A pairs and then answers them exactly (greedy), while the main loop keeps ticking', async () => {
    const steps: StepMetrics[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    let trained = false;
    const job = engine
      .sft({
        baseCheckpointDir: ck('step0'),
        outCheckpointDir: ck('step1'),
        examples: qaExamples(30),
        batchSize: 8,
        learningRate: 3e-3,
        onStep: (m) => steps.push(m),
      })
      .then(() => (trained = true));
    // The worker answers a ping between gradient steps, i.e. before the job is over (system-check).
    await engine.ping();
    expect(trained).toBe(false);
    await job;
    clearInterval(timer);
    // Training runs in the worker: the main event loop served timers throughout.
    expect(ticks).toBeGreaterThan(3);
    expect(steps).toHaveLength(30); // 240 examples / batch 8
    for (const m of steps) {
      expect(Number.isFinite(m.loss) && Number.isFinite(m.grad_norm) && Number.isFinite(m.entropy!)).toBe(true);
      expect(m.learning_rate).toBe(3e-3);
      expect(m.num_trainable_tokens).toBeGreaterThan(8);
    }
    expect(steps.at(-1)!.loss).toBeLessThan(steps[0]!.loss / 3);
    expect(JSON.parse(fs.readFileSync(path.join(ck('step1'), 'meta.json'), 'utf8')).step).toBe(1);

    let exact = 0;
    for (const [q, a] of QA) {
      const [c] = await engine.complete({ checkpointDir: ck('step1'), messages: user(q), temperature: 0, maxTokens: 16 });
      if (c!.text === a && c!.finish_reason === 'stop') exact++;
    }
    expect(exact).toBeGreaterThanOrEqual(6); // "most" of 8
  }, 120_000);

  it('uses one learning rate per batch and rejects a list of the wrong length', async () => {
    const lrs: number[] = [];
    await engine.sft({
      baseCheckpointDir: ck('step0'),
      outCheckpointDir: ck('sched'),
      examples: qaExamples(1),
      batchSize: 4,
      learningRate: [1e-3, 5e-4],
      onStep: (m) => lrs.push(m.learning_rate),
    });
    expect(lrs).toEqual([1e-3, 5e-4]);
    await expect(
      engine.sft({ baseCheckpointDir: ck('step0'), outCheckpointDir: ck('bad'), examples: qaExamples(1), batchSize: 4, learningRate: [1e-3], onStep: () => {} }),
    ).rejects.toThrow(/learning_rate has 1 values but the data makes 2 batches/);
    expect(fs.existsSync(ck('bad'))).toBe(false);
  }, 60_000);

  it('trains nothing on examples without assistant turns, yet writes the next checkpoint', async () => {
    const steps: StepMetrics[] = [];
    await engine.sft({
      baseCheckpointDir: ck('step0'),
      outCheckpointDir: ck('empty'),
      examples: [{ messages: user('no answer here') }, { messages: [{ role: 'system', content: 'x' }] }],
      batchSize: 'auto',
      learningRate: 1e-3,
      onStep: (m) => steps.push(m),
    });
    expect(steps).toHaveLength(0);
    const meta = JSON.parse(fs.readFileSync(path.join(ck('empty'), 'meta.json'), 'utf8'));
    expect(meta.step).toBe(1);
    // Nothing trainable → the weights are unchanged.
    expect(fs.readFileSync(path.join(ck('empty'), 'weights.bin')).equals(fs.readFileSync(path.join(ck('step0'), 'weights.bin')))).toBe(true);
  });

  it('close() rejects work in flight; the engine can be used again afterwards', async () => {
    const other = createBuiltinEngine();
    const job = other.sft({ baseCheckpointDir: ck('step0'), outCheckpointDir: ck('closed'), examples: qaExamples(20), batchSize: 8, learningRate: 1e-3, onStep: () => {} });
    const rejected = expect(job).rejects.toThrow(/trainer engine closed/);
    await other.ping();
    await other.close();
    await rejected;
    await other.ping(); // a fresh worker
    await other.close();
  });

  it('names the bad example and role', async () => {
    await expect(
      engine.sft({
        baseCheckpointDir: ck('step0'),
        outCheckpointDir: ck('bad2'),
        examples: [...qaExamples(1), { messages: [{ role: 'robot' as 'user', content: 'x' }] }],
        batchSize: 2,
        learningRate: 1e-3,
        onStep: () => {},
      }),
    ).rejects.toThrow(/examples\[8\]\.messages\[0\]\.role: unknown role "robot"/);
    await expect(
      engine.sft({ baseCheckpointDir: ck('missing'), outCheckpointDir: ck('bad3'), examples: [], batchSize: 2, learningRate: 1e-3, onStep: () => {} }),
    ).rejects.toThrow(/meta\.json not found/);
  });
});
