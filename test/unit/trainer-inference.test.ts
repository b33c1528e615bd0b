import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinEngine, type BuiltinEngine } from '../../src/main/training/index.js';
import { QA, TEST_MODEL, qaExamples, tempRoot, user } from './trainer-fixtures.js';

describe('built-in trainer: inference', () => {
  let engine: BuiltinEngine;
  let root: string;
  let step0: string;
  let trained: string;

  beforeAll(async () => {
    engine = createBuiltinEngine();
    root = tempRoot('infer');
    step0 = path.join(root, 'step0');
    trained = path.join(root, 'step1');
    await engine.initCheckpoint(TEST_MODEL, step0);
    // A little training so greedy output is text, not noise (stop strings need real text).
    await engine.sft({ baseCheckpointDir: step0, outCheckpointDir: trained, examples: qaExamples(20), batchSize: 8, learningRate: 3e-3, onStep: () => {} });
  }, 300_000); // a cold worker and 20–30 SFT steps: ~85 s at load 12 on 2 cores (a limit, nothing here times anything)
  afterAll(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('answers ping and reports no accelerator with a reason', async () => {
    await engine.ping();
    const acc = await engine.accelerator();
    expect(acc.available).toBe(false);
    expect(acc.reason).toMatch(/no GPU backend: TensorFlow\.js runs on its "(wasm|cpu)" backend/);
  });

  it('same seed → same completion; another seed → (almost surely) another one', async () => {
    const req = { checkpointDir: step0, messages: user('hello'), maxTokens: 24, temperature: 1, seed: 7 };
    const a = await engine.complete(req);
    const b = await engine.complete(req);
    expect(b).toEqual(a);
    const c = await engine.complete({ ...req, seed: 8 });
    expect(c[0]!.token_ids).not.toEqual(a[0]!.token_ids);
  });

  it('returns the sampled token logprob, consistent with a teacher-forced pass over the same tokens', async () => {
    for (const dir of [step0, trained]) {
      const [g] = await engine.complete({ checkpointDir: dir, messages: user('Capital of France?'), temperature: 0, maxTokens: 12, topLogprobs: 3 });
      expect(g!.logprobs).toHaveLength(g!.token_ids.length);
      g!.logprobs.forEach((lp, i) => {
        expect(lp.token).toBe(`token_id:${g!.token_ids[i]}`);
        expect(lp.top_logprobs).toHaveLength(3);
        // Greedy: the sampled token is the most likely one.
        expect(lp.top_logprobs[0]!.token).toBe(lp.token);
        expect(lp.logprob).toBeCloseTo(lp.top_logprobs[0]!.logprob, 9);
      });
      const again = await engine.score(dir, user('Capital of France?'), g!.token_ids);
      again.forEach((lp, i) => expect(lp).toBeCloseTo(g!.logprobs[i]!.logprob, 3));
    }
  });

  it('n > 1 gives n choices; streamed pieces add up to each text', async () => {
    const streamed = ['', '', '', ''];
    const out = await engine.complete({
      checkpointDir: step0,
      messages: user('hi'),
      n: 4,
      maxTokens: 10,
      seed: 3,
      onToken: (i, t) => (streamed[i] += t),
    });
    expect(out).toHaveLength(4);
    expect(new Set(out.map((c) => c.token_ids.join(','))).size).toBeGreaterThan(1);
    out.forEach((c, i) => {
      expect(streamed[i]).toBe(c.text);
      expect(c.finish_reason === 'length' ? c.token_ids.length === 10 : true).toBe(true);
    });
  });

  it('stops at a stop string (excluded from text, tokens cut to match) and at the end marker', async () => {
    const [full] = await engine.complete({ checkpointDir: trained, messages: user('Largest planet?'), temperature: 0, maxTokens: 16 });
    expect(full!.text).toBe('Jupiter');
    expect(full!.finish_reason).toBe('stop'); // the end marker
    let streamed = '';
    const [cut] = await engine.complete({
      checkpointDir: trained,
      messages: user('Largest planet?'),
      temperature: 0,
      maxTokens: 16,
      stop: ['pit'],
      onToken: (_i, t) => (streamed += t),
    });
    expect(cut!.text).toBe('Ju');
    expect(streamed).toBe('Ju');
    expect(cut!.finish_reason).toBe('stop');
    expect(cut!.token_ids).toEqual(full!.token_ids.slice(0, 2));
    const [short] = await engine.complete({ checkpointDir: trained, messages: user('Largest planet?'), temperature: 0, maxTokens: 3 });
    expect(short).toMatchObject({ text: 'Jup', finish_reason: 'length' });
  });

  it('still answers the training questions from the trained checkpoint', async () => {
    const texts = await Promise.all(QA.map(([q]) => engine.complete({ checkpointDir: trained, messages: user(q), temperature: 0, maxTokens: 12 })));
    expect(texts.filter((t, i) => t[0]!.text === QA[i]![1]).length).toBeGreaterThanOrEqual(5);
  });

  it('keeps generating past the context length (cache, then sliding window) without leaking tensors', async () => {
    const before = (await engine.memory())[0]!.tfTensors;
    for (const prompt of ['x'.repeat(80), 'y'.repeat(300)]) {
      // test model context = 96 tokens: the first crosses it while generating, the second starts past it.
      const req = { checkpointDir: step0, messages: user(prompt), maxTokens: 40, seed: 11, n: 2 };
      const out = await engine.complete(req);
      for (const c of out) {
        expect(c.logprobs.every((l) => Number.isFinite(l.logprob) && l.logprob <= 0)).toBe(true);
        expect(c.finish_reason === 'length' ? c.token_ids.length === 40 : c.token_ids.at(-1) === 260).toBe(true);
      }
      expect(await engine.complete(req)).toEqual(out);
    }
    expect((await engine.memory())[0]!.tfTensors).toBe(before);
  });

  it('rejects bad requests with a message naming the field', async () => {
    await expect(engine.complete({ checkpointDir: step0, messages: user('x'), n: 0 })).rejects.toThrow(/n must be an integer in 1\.\.128, got 0/);
    await expect(engine.complete({ checkpointDir: step0, messages: user('x'), temperature: -1 })).rejects.toThrow(/temperature must be a number ≥ 0/);
    await expect(engine.complete({ checkpointDir: path.join(root, 'nope'), messages: user('x') })).rejects.toThrow(/weights\.bin not found/);
    await engine.ping(); // the worker survives request errors
  });
});
