/**
 * The calculator conversations replay tests share: 50 conversations of one agent, each a user
 * question, an `add` tool call with its recorded result and an answer, whose replay outcome is known
 * by its kind (the scripted new model answers by the `case:<kind>` in the question).
 */
import { expect } from 'vitest';
import { exportRequest, type DemoSpan } from '../../src/main/demo/otlp.js';
import type { ChatRequest, ScriptAnswer } from './scripted-openai.js';

export const PROJECT = 'local/calc';

export const getJson = async (url: string, p: string): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${url}${p}`);
  return { status: res.status, body: await res.json() };
};

export async function waitFor(url: string, id: string, pred: (r: any) => boolean = (r) => r.status !== 'running', timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getJson(url, `/app/replays/${id}`);
    if (pred(body)) return body;
    if (Date.now() > until) throw new Error(`replay ${id} still ${body.status}: ${JSON.stringify(body.totals)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- 50 conversations with known outcomes ---------------------------------------------------------
export const KINDS = [
  ...Array<string>(10).fill('same'), ...Array<string>(10).fill('better'), ...Array<string>(10).fill('worse'),
  ...Array<string>(5).fill('unseentool'), ...Array<string>(5).fill('unseenargs'), ...Array<string>(5).fill('changed'), ...Array<string>(5).fill('failed'),
];
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
const MS = 1_000_000n;

export function calcConversation(i: number): { spans: DemoSpan[]; conv: string; trace: string; a: number; b: number } {
  const kind = KINDS[i]!;
  const a = 10 + i;
  const b = 20 + 2 * i;
  const sum = a + b;
  const conv = `calc-${i}`;
  const trace = hex(0xa000 + i, 32);
  const t = BigInt(Date.UTC(2026, 10, 1, 10, 0, i)) * MS;
  const user = { role: 'user', parts: [{ type: 'text', content: `case:${kind} What is ${a}+${b}?` }] };
  const call = { role: 'assistant', parts: [{ type: 'tool_call', id: `call_${i}`, name: 'add', arguments: { a, b } }], finish_reason: 'tool_call' };
  const result = { role: 'tool', parts: [{ type: 'tool_call_response', id: `call_${i}`, response: { sum } }] };
  const answer = kind === 'better' ? `The answer is ${sum + 1}.` : `The answer is ${sum}.`;
  const common = { 'gen_ai.conversation.id': conv, 'gen_ai.agent.name': 'calc' };
  const chat = { ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.temperature': 0.3, 'gen_ai.request.max_tokens': 256,
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You add numbers.' }]),
    'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }]) };
  const root = hex(0xb000 + i, 16);
  return {
    conv, trace, a, b,
    spans: [
      { traceId: trace, spanId: root, name: 'invoke_agent calc', kind: 1, startNs: t, endNs: t + 900n * MS, attributes: { ...common, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.input.messages': JSON.stringify([user]), 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]) } },
      { traceId: trace, spanId: hex(0xc000 + i, 16), parentSpanId: root, name: 'chat gpt-4o-mini', kind: 3, startNs: t + MS, endNs: t + 300n * MS, attributes: { ...chat, 'gen_ai.input.messages': JSON.stringify([user]), 'gen_ai.output.messages': JSON.stringify([call]), 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.output_tokens': 10 } },
      { traceId: trace, spanId: hex(0xd000 + i, 16), parentSpanId: root, name: 'execute_tool add', kind: 1, startNs: t + 310n * MS, endNs: t + 320n * MS, attributes: { ...common, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'add', 'gen_ai.tool.call.id': `call_${i}`, 'gen_ai.tool.call.arguments': JSON.stringify({ a, b }), 'gen_ai.tool.call.result': JSON.stringify({ sum }) } },
      { traceId: trace, spanId: hex(0xe000 + i, 16), parentSpanId: root, name: 'chat gpt-4o-mini', kind: 3, startNs: t + 330n * MS, endNs: t + 890n * MS, attributes: { ...chat, 'gen_ai.input.messages': JSON.stringify([user, call, result]), 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]), 'gen_ai.usage.input_tokens': 80, 'gen_ai.usage.output_tokens': 12 } },
    ],
  };
}
export const CONVS = KINDS.map((_, i) => calcConversation(i));

/** The scripted new model: calls `add` as recorded (or not, by case), then answers by case. */
export function calcScript(req: ChatRequest): ScriptAnswer {
  const userText = req.messages.find((m) => m.role === 'user')!.content!;
  const [, kind, a, b] = /case:(\w+) What is (\d+)\+(\d+)/.exec(userText)!;
  const sum = Number(a) + Number(b);
  const last = req.messages[req.messages.length - 1]!;
  if (kind === 'failed') return { status: 400, body: { error: { message: 'model not available' } } };
  if (last.role === 'user') {
    if (kind === 'unseentool') return { tool: 'multiply', args: { a: Number(a), b: Number(b) } };
    if (kind === 'unseenargs') return { tool: 'add', args: { a: Number(a), b: Number(b) + 1 } };
    return { tool: 'add', args: { b: Number(b), a: Number(a) } }; // key order differs from the recording: still exact
  }
  if (kind === 'worse') return { text: `The answer is ${sum - 1}.` };
  if (kind === 'changed') return { text: `${sum} is the sum.` };
  return { text: `The answer is ${sum}.` };
}

export async function storeCalc(server: { url: string }): Promise<void> {
  const body = exportRequest('calc-agent', {}, CONVS.flatMap((c) => c.spans));
  const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': PROJECT }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

