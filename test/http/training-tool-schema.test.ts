/**
 * Forced tool calls follow the function's JSON Schema over HTTP (issue 22.13): through the `openai`
 * client, tool_choice "required" or a named function, streamed or not, for several schemas and
 * max_tokens from the least that holds a valid call upwards — every answer is a call whose arguments
 * parse and validate against `parameters` (ajv), never a 500; below the least, a 400 naming
 * max_tokens (the stream's error arrives before any chunk, as an HTTP error).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { startTrainingServer, type TrainingServer } from './training-fixture.js';

let s: TrainingServer;
let openai: OpenAI;
const MODEL = 'local/schema/tools';
beforeAll(async () => {
  s = await startTrainingServer();
  openai = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
  expect((await s.req('POST', '/v1/preview/models', { project: 'schema', name: 'tools', base_model: 'loupe-tiny-bytes' })).status).toBe(200);
}, 60_000);
afterAll(async () => s?.close());

const FUNCTIONS = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] }, days: { type: 'integer' }, hourly: { type: 'boolean' } },
      required: ['city', 'unit', 'days'],
    },
  },
  {
    name: 'book',
    parameters: {
      type: 'object',
      properties: {
        guest: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' }, vip: { type: 'boolean' } }, required: ['name', 'vip'] },
        nights: { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 3 },
        note: { type: ['string', 'null'] },
      },
      required: ['guest', 'nights'],
    },
  },
];
const tools = FUNCTIONS.map((f) => ({ type: 'function' as const, function: f }));
const ajv = new Ajv({ strict: false });
const validate = Object.fromEntries(FUNCTIONS.map((f) => [f.name, ajv.compile(f.parameters)]));

type Call = { function: { name: string; arguments: string } };
async function callsOf(toolChoice: OpenAI.Chat.Completions.ChatCompletionToolChoiceOption, maxTokens: number, stream: boolean, seed: number): Promise<Call[]> {
  const req = { model: MODEL, messages: [{ role: 'user' as const, content: 'book it' }], tools, tool_choice: toolChoice, max_tokens: maxTokens, temperature: 1, seed };
  if (!stream) return ((await openai.chat.completions.create(req)).choices[0]!.message.tool_calls ?? []) as Call[];
  const calls: Call[] = [];
  for await (const chunk of await openai.chat.completions.create({ ...req, stream: true })) {
    for (const c of chunk.choices[0]?.delta.tool_calls ?? []) calls.push(c as never);
  }
  return calls;
}

test('forced calls validate against their schema for every max_tokens from the least upwards, streamed or not; below it a 400', async () => {
  let checked = 0;
  for (const [i, f] of FUNCTIONS.entries()) {
    const choices: OpenAI.Chat.Completions.ChatCompletionToolChoiceOption[] = ['required', { type: 'function', function: { name: f.name } }];
    for (const choice of choices) {
      // The least budget, as the 400 states it.
      const tooSmall = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'go' }], tools, tool_choice: choice, max_tokens: 8 }).catch((e: unknown) => e);
      expect(tooSmall).toBeInstanceOf(OpenAI.APIError);
      const err = tooSmall as InstanceType<typeof OpenAI.APIError>;
      expect(err.status).toBe(400);
      expect(err.param).toBe('max_tokens');
      const least = Number(/needs at least (\d+) tokens/.exec(err.message)![1]);
      for (const budget of [least, least + 7, 200]) {
        for (const stream of [false, true]) {
          const calls = await callsOf(choice, budget, stream, 100 * i + budget);
          expect(calls.length, `${f.name} ${JSON.stringify(choice)} max_tokens ${budget} stream ${stream}`).toBeGreaterThan(0);
          for (const c of calls) {
            if (typeof choice !== 'string') expect(c.function.name).toBe(f.name);
            const args = JSON.parse(c.function.arguments) as unknown;
            expect(validate[c.function.name]!(args), `${c.function.name} ${c.function.arguments}: ${JSON.stringify(validate[c.function.name]!.errors)}`).toBe(true);
            checked++;
          }
        }
      }
    }
  }
  expect(checked).toBeGreaterThanOrEqual(24);
}, 300_000);
