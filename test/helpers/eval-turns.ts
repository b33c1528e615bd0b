/**
 * Agent turns built to hit or miss the scorers and failure signatures of issue 20: an invoke_agent
 * root, a chat call (user question in, answer out with a finish reason), then tool calls (each its
 * own execute_tool span, failing with an error type and message when asked), optionally a failing
 * agent. OTLP JSON as the current OTel GenAI instrumentations write it.
 */
import { chatAttributes, traceBuilder } from './otlp.js';

export interface TurnSpec {
  seed: string;
  conversation?: string | null;
  /** Start, ms since the epoch. */
  at: number;
  agent?: string;
  question: string;
  answer: string;
  model?: string;
  finish?: string;
  tools?: { name: string; args: Record<string, unknown>; error?: { type: string; message: string } }[];
  /** The agent span fails (after its calls). */
  agentError?: { type: string; message: string };
  durationMs?: number;
  inputTokens?: number;
  outputTokens?: number;
}

export function buildTurn(t: TurnSpec) {
  const b = traceBuilder({ seed: t.seed, start: t.at });
  const conv = t.conversation ? { 'gen_ai.conversation.id': t.conversation } : {};
  const agent = t.agent ?? 'Support';
  const duration = t.durationMs ?? 3000;
  const root = b.span(`invoke_agent ${agent}`, {
    durationMs: duration,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, ...conv, ...(t.agentError ? { 'error.type': t.agentError.type } : {}) },
    ...(t.agentError ? { status: { code: 'ERROR' as const, message: t.agentError.message } } : {}),
  });
  const tools = t.tools ?? [];
  b.span(`chat ${t.model ?? 'gpt-4o-mini'}`, {
    parent: root, at: 5, durationMs: 400,
    attributes: chatAttributes({
      model: t.model ?? 'gpt-4o-mini', conversationId: t.conversation ?? undefined, inputTokens: t.inputTokens ?? 120, outputTokens: t.outputTokens ?? 30,
      input: [{ role: 'user', content: t.question }],
      output: [{ role: 'assistant', content: t.answer, finish_reason: t.finish ?? 'stop' }],
    }),
  });
  tools.forEach((x, i) => {
    b.span(`execute_tool ${x.name}`, {
      parent: root, at: 500 + i * 100, durationMs: 50,
      attributes: {
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': x.name, 'gen_ai.tool.call.id': `${t.seed}-call-${i}`,
        'gen_ai.tool.call.arguments': JSON.stringify(x.args), ...(x.error ? { 'error.type': x.error.type } : { 'gen_ai.tool.call.result': '{"ok":true}' }),
      },
      ...(x.error ? { status: { code: 'ERROR' as const, message: x.error.message } } : {}),
    });
  });
  return b;
}

/** Posts turns to a running Loupe's /v1/traces in bodies of `per` traces. */
export async function postTurns(url: string, projectId: string, turns: ReturnType<typeof buildTurn>[], per = 200): Promise<void> {
  for (let i = 0; i < turns.length; i += per) {
    const spans = turns.slice(i, i + per).flatMap((t) => t.spans());
    const body = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'eval-test' } }] }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] };
    const r = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': projectId }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`POST /v1/traces answered ${r.status}: ${await r.text()}`);
  }
}
