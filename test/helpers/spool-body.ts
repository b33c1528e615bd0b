/**
 * OTLP/JSON bodies for the spool's tests (test/http/otlp-spool.test.ts, test/e2e/spool-status.test.ts):
 * `traces` traces of an agent run (`invoke_agent spooler`) and its model call, 2 spans and 13 tokens
 * (10 in, 3 out) each, ~1 KB a trace, ids derived from `seed`.
 */
import { chatAttributes, traceBuilder } from './otlp.js';

export function agentRunsBody(traces: number, seed = 's'): Buffer {
  const resourceSpans: unknown[] = [];
  for (let i = 0; i < traces; i++) {
    const t = traceBuilder({ seed: `${seed}-${i}`, start: Date.UTC(2026, 10, 27, 10) + i * 1000 });
    const root = t.span('invoke_agent spooler', { durationMs: 900, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'spooler' } });
    t.span('chat gpt-4o-mini', {
      parent: root,
      at: 10,
      durationMs: 300,
      attributes: chatAttributes({
        model: 'gpt-4o-mini',
        conversationId: `conv-${seed}-${i}`,
        input: [{ role: 'user', content: `question ${i}: ${'where is my parcel? '.repeat(12)}` }],
        output: [{ role: 'assistant', content: `answer ${i}` }],
        inputTokens: 10,
        outputTokens: 3,
      }),
    });
    resourceSpans.push(...(t.request() as { resourceSpans: unknown[] }).resourceSpans);
  }
  return Buffer.from(JSON.stringify({ resourceSpans }));
}

