/**
 * The official OpenTelemetry JS exporters (OTLP/HTTP protobuf and JSON) with the Node SDK, pointed
 * at a Loupe on port 0, deliver GenAI spans that are then stored and read back.
 */
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spanCount, startTestServer } from './server-harness.js';

let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** An agent turn as an instrumented app records it: invoke_agent → chat + execute_tool. */
async function recordTurn(exporter: SpanExporter, conversationId: string): Promise<void> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'exporter-test' }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('loupe-test');
  const root = tracer.startSpan('invoke_agent support', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'gen_ai.conversation.id': conversationId },
  });
  const ctx = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan('chat gpt-4o-mini', {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.conversation.id': conversationId, 'gen_ai.usage.input_tokens': 42, 'gen_ai.usage.output_tokens': 7,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is order A-1187?' }] }]),
    },
  }, ctx);
  chat.end();
  const tool = tracer.startSpan('execute_tool lookup_order', {
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"order_id":"A-1187"}' },
  }, ctx);
  tool.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
}

async function exportedTrace(project: string): Promise<{ names: string[]; conversation: string | undefined }> {
  const res = await fetch(`${server.url}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: project }) });
  const lines = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const spans = lines.flatMap((l) => l.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)));
  const chat = spans.find((s: any) => s.name.startsWith('chat'));
  const conv = chat?.attributes?.find((a: any) => a.key === 'gen_ai.conversation.id')?.value?.stringValue;
  return { names: spans.map((s: any) => s.name).sort(), conversation: conv };
}

describe('official OpenTelemetry JS exporters', () => {
  it('exporter-trace-otlp-proto delivers spans that are stored', async () => {
    await recordTurn(new ProtoExporter({ url: `${server.url}/v1/traces`, headers: { 'x-project-id': 'otel/proto' } }), 'conv-proto');
    expect(await spanCount(server.url, 'otel/proto')).toBe(3);
    const t = await exportedTrace('otel/proto');
    expect(t.names).toEqual(['chat gpt-4o-mini', 'execute_tool lookup_order', 'invoke_agent support']);
    expect(t.conversation).toBe('conv-proto');
  });

  it('exporter-trace-otlp-http (JSON) delivers spans that are stored', async () => {
    await recordTurn(new JsonExporter({ url: `${server.url}/v1/traces`, headers: { 'x-project-id': 'otel/json' } }), 'conv-json');
    expect(await spanCount(server.url, 'otel/json')).toBe(3);
    const t = await exportedTrace('otel/json');
    expect(t.names).toEqual(['chat gpt-4o-mini', 'execute_tool lookup_order', 'invoke_agent support']);
    expect(t.conversation).toBe('conv-json');
  });
});
