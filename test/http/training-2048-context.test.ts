/**
 * A context that fits the open client's 2048 example (issue 22.14): its real first request (system
 * prompt, board, max_completion_tokens 128) to a hosted base model name is answered by the default
 * built-in model (loupe-tiny-bytes-2k) through the `openai` client, the next move (history sent again)
 * too, and one RL step on a group of those two rollouts trains; a prompt past 2,048 tokens is OpenAI's
 * context_length_exceeded 400 naming the limit; loupe-tiny-bytes keeps its 256-token context and
 * its step-0 weights (the checkpoints made before still load and answer).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import OpenAI from 'openai';
import { startTrainingServer, type TrainingServer } from './training-fixture.js';
import { ArtClient, choiceDump, groupDump, trajectoryDump, type ArtModel } from './art-client.js';
import { repoRoot } from '../helpers/paths.js';

const FIRST = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/art-2048/first-request.json'), 'utf8')) as {
  base_model: string;
  max_completion_tokens: number;
  messages: { role: 'system' | 'user'; content: string }[];
  next_board: string;
};

let s: TrainingServer;
let openai: OpenAI;
let art: ArtClient;
beforeAll(async () => {
  s = await startTrainingServer();
  openai = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
  art = new ArtClient(s.url, s.key);
}, 60_000);
afterAll(async () => s?.close());

test("the 2048 example's first request and next move are answered by the default model, and an RL step on them trains", async () => {
  const created = await fetch(`${s.url}/v1/preview/models`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ entity: null, project: '2048', name: 'agent-001', base_model: FIRST.base_model, return_existing: true }),
  });
  expect(created.headers.get('x-loupe-substitution')).toBe(`${FIRST.base_model} -> loupe-tiny-bytes-2k`);
  const model = (await created.json()) as ArtModel & { runtime_model: string };
  expect(model.runtime_model).toBe('loupe-tiny-bytes-2k');

  // The rollout's first move, exactly as rollout.py sends it (n=1, temperature 1 by default).
  const name = art.inferenceName(model);
  const first = await openai.chat.completions.create({ model: name, messages: FIRST.messages, max_completion_tokens: FIRST.max_completion_tokens, seed: 1 });
  expect(first.usage!.prompt_tokens).toBe(309);
  expect(first.usage!.completion_tokens).toBeGreaterThan(0);
  expect(first.usage!.completion_tokens).toBeLessThanOrEqual(128); // what was asked caps the answer
  expect(first.choices[0]!.logprobs!.content!.length).toBe(first.usage!.completion_tokens);
  expect(first.system_fingerprint).toBe('loupe-tiny-bytes-2k-step0');
  // The next move: the whole history again (the first choice as a message) plus the next board.
  const answer = first.choices[0]!.message.content ?? '';
  const history = [...FIRST.messages, { role: 'assistant' as const, content: answer }, { role: 'user' as const, content: FIRST.next_board }];
  const second = await openai.chat.completions.create({ model: name, messages: history, max_completion_tokens: FIRST.max_completion_tokens, seed: 2 });
  // One token per byte, a role and an end marker per message.
  expect(second.usage!.prompt_tokens).toBe(309 + (Buffer.byteLength(answer) + 2) + (FIRST.next_board.length + 2));

  // One RL step on a group of two rollouts as ART dumps them: one move (reward 1), two moves (reward -1).
  const groups = [
    groupDump([
      trajectoryDump([...FIRST.messages, choiceDump(first.choices[0]!)], 1),
      trajectoryDump([...history, choiceDump(second.choices[0]!)], -1),
    ]),
  ];
  const events = await art.train(model.id, groups);
  const steps = events.filter((e) => e.type === 'gradient_step');
  expect(steps.length).toBe(1);
  expect(Number(steps[0]!.data.num_trainable_tokens)).toBe(first.usage!.completion_tokens + second.usage!.completion_tokens);
  expect(await art.getStep(model.id)).toBe(1);
  const after = await openai.chat.completions.create({ model: art.inferenceName(model, 1), messages: FIRST.messages, max_completion_tokens: 1 });
  expect(after.system_fingerprint).toBe('loupe-tiny-bytes-2k-step1');
}, 600_000); // ~50 s at load 20, ~200 s at load 27 (2 cores)

test('a prompt longer than the 2,048-token context is a 400 context_length_exceeded naming the limit, as is one that leaves no room for what is asked', async () => {
  await s.req('POST', '/v1/preview/models', { project: '2048', name: 'long', base_model: FIRST.base_model });
  const boards = (n: number) => [FIRST.messages[0]!, { role: 'user' as const, content: FIRST.messages[1]!.content.repeat(n) }];
  // system 274 tokens + boards (32 bytes each, +2) + the answer's <assistant>
  const cases: [ReturnType<typeof boards>, number | undefined, number][] = [
    [boards(60), undefined, 274 + 1922 + 1], // the messages alone are past 2,048
    [boards(53), 128, 274 + 1698 + 1 + 128], // they fit, but not with the 128 asked
  ];
  for (const [messages, asked, requested] of cases) {
    const err = await openai.chat.completions.create({ model: 'local/2048/long', messages, max_completion_tokens: asked }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.code).toBe('context_length_exceeded');
    expect(e.param).toBe('messages');
    expect(e.message).toContain("This model's maximum context length is 2048 tokens. However, you requested");
    expect(e.message).toContain(`you requested ${requested} tokens`);
  }
}, 120_000);

test('loupe-tiny-bytes keeps its step-0 weights and 256-token context: its models answer, and the 2048 request is a 400 naming 256', async () => {
  const r = await s.req('POST', '/v1/preview/models', { project: '2048', name: 'old', base_model: 'loupe-tiny-bytes' });
  expect(r.body.runtime_model).toBe('loupe-tiny-bytes');
  // The step-0 weights of loupe-tiny-bytes as main wrote them before the 2k model existed (sha256 of weights.bin).
  const weights = fs.readFileSync(path.join(s.dataDir, 'models', r.body.id, 'step0', 'weights.bin'));
  expect(crypto.createHash('sha256').update(weights).digest('hex')).toBe(TINY_BYTES_STEP0_SHA256);
  const ok = await openai.chat.completions.create({ model: 'local/2048/old', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 4, seed: 1 });
  expect(ok.system_fingerprint).toBe('loupe-tiny-bytes-step0');
  const err = await openai.chat.completions.create({ model: 'local/2048/old', messages: FIRST.messages, max_completion_tokens: 128 }).catch((e: unknown) => e);
  expect((err as { code?: string }).code).toBe('context_length_exceeded');
  expect((err as Error).message).toContain("This model's maximum context length is 256 tokens. However, you requested 437 tokens (309 in the messages, 128 in the completion)");
}, 120_000);

const TINY_BYTES_STEP0_SHA256 = '321455ca7dac1bd6c11305c5c945b508929057bc7cceb9f46add1b77572e1385';
