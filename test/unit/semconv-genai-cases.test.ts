/**
 * The GenAI semantic conventions' message-shape cases (issue 18 item 5): every case file of
 * open-telemetry/semantic-conventions-genai `docs/gen-ai/non-normative/tests/cases/` that documents a
 * message, system-instruction, tool-definition or tool-call value, copied verbatim into
 * test/fixtures/semconv-genai/cases/ (provenance in its README). Each document is sent as the
 * attribute its schema describes (as JSON text, the way emitters write structured attributes), through
 * the OTLP importer into a real SQLite store, and read back through `chat.trace`:
 * - a valid case (`errors: []`) reads as what it says (texts, roles, tool calls, definitions);
 * - an invalid case is stored and shown raw (the attribute kept verbatim, what can be read read) and
 *   nothing crashes or prints a JavaScript value's spelling (`[object Object]`, `null`, `None`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/paths.js';
import { traceBuilder } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { call, tempContext } from './chat-fixture.js';

const DIR = path.join(repoRoot, 'test/fixtures/semconv-genai/cases');
interface Case { file: string; description: string; schema: string; document: unknown; errors: unknown[] }
const cases: Case[] = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort()
  .map((file) => ({ file, ...(parse(readFileSync(path.join(DIR, file), 'utf8')) as Omit<Case, 'file'>) }));

/** The attribute each schema describes, and the span kind that carries it. */
const CARRIER: Record<string, { key: string; op: 'chat' | 'invoke_agent' | 'execute_tool' }> = {
  'gen-ai-input-messages.json': { key: 'gen_ai.input.messages', op: 'chat' },
  'gen-ai-output-messages.json': { key: 'gen_ai.output.messages', op: 'chat' },
  'gen-ai-system-instructions.json': { key: 'gen_ai.system_instructions', op: 'invoke_agent' },
  'gen-ai-tool-definitions.json': { key: 'gen_ai.tool.definitions', op: 'invoke_agent' },
  'gen-ai-tool-call-arguments.json': { key: 'gen_ai.tool.call.arguments', op: 'execute_tool' },
  'gen-ai-tool-call-result.json': { key: 'gen_ai.tool.call.result', op: 'execute_tool' },
};

let ctx: Awaited<ReturnType<typeof tempContext>>;
beforeAll(async () => {
  ctx = await tempContext();
});
afterAll(async () => ctx?.stores.close());

/** Imports one span carrying the document; returns the chat of its trace and the stored raw span. */
async function read(c: Case, i: number) {
  const { key, op } = CARRIER[c.schema]!;
  const text = typeof c.document === 'string' ? c.document : JSON.stringify(c.document);
  const t = traceBuilder({ seed: `semconv-${i}`, start: '2026-11-27T10:00:00Z' });
  const name = op === 'chat' ? 'chat gpt-4o' : op === 'invoke_agent' ? 'invoke_agent Case' : 'execute_tool get_weather';
  const attributes: Record<string, string> = { 'gen_ai.operation.name': op, [key]: text };
  if (op === 'invoke_agent') attributes['gen_ai.agent.name'] = 'Case';
  if (op === 'execute_tool') attributes['gen_ai.tool.name'] = 'get_weather';
  t.span(name, { durationMs: 10, attributes });
  const report = await importBuffer(ctx.traces, Buffer.from(JSON.stringify(t.request())), { contentType: 'application/json', projectId: `semconv/${i}` });
  expect(report.errors, c.file).toEqual([]);
  expect(report.spans_imported + report.spans_replaced, c.file).toBe(1);
  const traceId = (t.request() as any).resourceSpans[0].scopeSpans[0].spans[0].traceId as string;
  const turn = (await call('chat.trace', { project_id: `semconv/${i}`, trace_id: traceId }, ctx)) as any;
  const raw = (await ctx.traces.exportTraceSpans(`semconv/${i}`, traceId))[0]!.raw_span;
  return { messages: turn.messages as any[], raw: JSON.parse(raw), text };
}

describe('GenAI semantic conventions: message-shape cases', () => {
  it('holds the conventions\' message-shape cases, each naming a schema this test maps', () => {
    expect(cases.length).toBeGreaterThanOrEqual(17);
    for (const c of cases) expect(CARRIER[c.schema], `${c.file}: ${c.schema}`).toBeDefined();
    expect(cases.filter((c) => c.errors.length === 0).length).toBeGreaterThanOrEqual(10);
    expect(cases.filter((c) => c.errors.length > 0).length).toBeGreaterThanOrEqual(6);
  });

  it.each(cases.map((c, i) => [c.file, c, i] as const))('%s: stored, read, shown without a JavaScript spelling', async (_f, c, i) => {
    const { messages, raw, text } = await read(c, i);
    // Shown raw: the attribute is kept exactly as sent (the span panel shows it).
    const attr = (raw.attributes as { key: string; value: { stringValue?: string } }[]).find((a) => a.key === CARRIER[c.schema]!.key);
    expect(attr?.value.stringValue, c.file).toBe(text);
    const shown = JSON.stringify(messages.map((m) => m[m.type]));
    expect(shown, c.file).not.toMatch(/\[object Object\]|"text":"(null|None|undefined)"/);
  });

  const valid = (file: string) => {
    const i = cases.findIndex((c) => c.file === file);
    expect(i, file).toBeGreaterThanOrEqual(0);
    expect(cases[i]!.errors, file).toEqual([]);
    return read(cases[i]!, i);
  };
  const of = (ms: any[], type: string) => ms.filter((m) => m.type === type).map((m) => m[type]);

  it('valid input messages read as the user speaking; history, generic and unknown parts are kept', async () => {
    expect(of((await valid('input-messages-text-messages.yaml')).messages, 'user_message').map((u) => u.text)).toEqual(['Tell me a joke about OpenTelemetry']);
    expect(of((await valid('input-messages-tool-call-round-trip.yaml')).messages, 'user_message').map((u) => u.text)).toEqual(["What's the weather in Paris?"]);
    expect(of((await valid('input-messages-generic-part.yaml')).messages, 'user_message').map((u) => u.text)).toEqual(['Answer using the attached search result.']);
    // A part of no known type and a text part without content: no user bubble of their own, no crash.
    expect(of((await valid('input-messages-unknown-part-type.yaml')).messages, 'user_message')).toEqual([]);
    expect(of((await valid('input-messages-parts-missing-required.yaml')).messages, 'user_message')).toEqual([]);
  });

  it('valid output messages read as the assistant: text, reasoning', async () => {
    expect(of((await valid('output-messages-assistant-text.yaml')).messages, 'assistant_message').map((a) => a.text)).toEqual([
      'Why did the developer bring OpenTelemetry to the party? Because it always knows how to trace the fun!',
    ]);
    const r = of((await valid('output-messages-reasoning-and-generic-parts.yaml')).messages, 'assistant_message');
    expect(r.map((a) => [a.text, a.reasoning_content])).toEqual([['', 'The user wants a short answer.']]);
  });

  it('valid system instructions and tool definitions are the agent\'s card', async () => {
    const si = of((await valid('system-instructions-text-and-generic-parts.yaml')).messages, 'agent_start');
    expect(si.map((s) => s.system_instructions)).toEqual(['You are a helpful bot']);
    const defs = of((await valid('tool-definitions-function-and-builtin-tools.yaml')).messages, 'agent_start');
    expect(JSON.parse(defs[0].tool_definitions).map((d: { name: string }) => d.name)).toEqual(['get_weather', 'web_search']);
  });

  it('valid tool-call arguments and results read as the tool call', async () => {
    const args = of((await valid('tool-call-arguments-object.yaml')).messages, 'tool_call');
    expect(JSON.parse(args[0].tool_arguments)).toEqual({ location: 'Paris', unit: 'celsius', days: 3 });
    const res = of((await valid('tool-call-result-object.yaml')).messages, 'tool_call');
    expect(JSON.parse(res[0].tool_result)).toEqual({ temperature: 57, unit: 'F', conditions: ['rainy'] });
  });

  it('invalid documents are shown as sent, and what can be read is read', async () => {
    const at = (file: string) => {
      const i = cases.findIndex((c) => c.file === file);
      expect(cases[i]!.errors.length, file).toBeGreaterThan(0);
      return read(cases[i]!, i);
    };
    // Arguments as the JSON-encoded string providers return: shown as that text.
    expect(of((await at('tool-call-arguments-not-an-object.yaml')).messages, 'tool_call')[0].tool_arguments).toBe('{"location": "Paris"}');
    expect(JSON.parse(of((await at('tool-call-result-not-an-object.yaml')).messages, 'tool_call')[0].tool_result)).toEqual([{ temperature: 57 }]);
    // `parts` as one object rather than a list: its text is still the answer.
    expect(of((await at('output-messages-wrong-field-types.yaml')).messages, 'assistant_message').map((a) => a.text)).toContain('oops');
    // A message without a role is read in the carrier's role; one without parts says nothing.
    expect(of((await at('input-messages-message-missing-required.yaml')).messages, 'user_message').map((u) => u.text)).toEqual(['hi']);
    // A bare string is an instruction too; a tool call there is not an instruction.
    expect(of((await at('system-instructions-unsupported-parts.yaml')).messages, 'agent_start').map((s) => s.system_instructions)).toEqual(['You are a helpful bot']);
    const defs = of((await at('tool-definitions-missing-required.yaml')).messages, 'agent_start');
    expect(JSON.parse(defs[0].tool_definitions)).toEqual([{ type: 'function', description: 'no name' }, { name: 'no type' }]);
  });
});
