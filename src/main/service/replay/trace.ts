/**
 * A replayed turn stored as a trace of its own (docs/replay.md "What a replay stores"), through the
 * same importer as any exporter's spans: an `invoke_agent` root in the original's conversation with
 * the original's agent name, one `chat` span per model call (the new model's request and answer,
 * usage; the store prices it), one `execute_tool` span per tool call answered (how it was matched),
 * and the divergence as a failed tool span. The link to the original and the replay is in
 * `loupe.replay.*` attributes. Ids derive from the replay and the original trace, so a turn stored
 * again after a restart lands on the same trace.
 */
import { createHash } from 'node:crypto';
import { exportRequest, type DemoSpan } from '../../demo/otlp.js';
import { KIND, messageAttrs } from '../training/spans.js';
import { importSpans } from '../training/import-spans.js';
import type { ServiceContext } from '../context.js';
import type { Recording } from './recording.js';
import type { TurnResult } from './turn.js';
import type { ResolvedTarget } from './target.js';

const hex = (s: string, n: number): string => createHash('sha256').update(s).digest('hex').slice(0, n);
export const replayTraceId = (replayId: string, originalTraceId: string): string => hex(`${replayId}/${originalTraceId}`, 32);

export async function storeReplayTrace(ctx: ServiceContext, projectId: string, replayId: string, rec: Recording, target: ResolvedTarget, r: TurnResult): Promise<string> {
  const traceId = replayTraceId(replayId, rec.trace_id);
  const sid = (i: number) => hex(`${traceId}/${i}`, 16);
  const rootId = sid(0);
  const start = r.calls[0]?.startNs ?? BigInt(Date.now()) * 1_000_000n;
  const end = [...r.calls.map((c) => c.endNs), ...r.tools.map((t) => t.endNs)].reduce((m, x) => (x > m ? x : m), start);
  const link = {
    'loupe.replay.id': replayId,
    'loupe.replay.of_trace': rec.trace_id,
    'loupe.replay.target': target.kind === 'endpoint' ? `${target.base_url} ${target.model}` : target.model,
    'gen_ai.conversation.id': rec.conversation_id ?? undefined,
    'gen_ai.agent.name': rec.agent_name ?? undefined,
  };
  const userSide = rec.messages.slice(-1);
  const failed = r.divergence?.handled === 'stopped' || r.error;
  const spans: DemoSpan[] = [
    {
      traceId, spanId: rootId, name: `invoke_agent ${rec.agent_name ?? 'replay'}`, kind: KIND.internal, startNs: start, endNs: end,
      attributes: {
        ...link, 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': target.model,
        'gen_ai.input.messages': JSON.stringify(userSide),
        'gen_ai.output.messages': r.answer ? JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: r.answer }], finish_reason: 'stop' }]) : undefined,
        'loupe.replay.diverged': !!r.divergence,
      },
      status: failed ? { code: 2, message: r.error ?? `divergence: the model asked for ${r.divergence!.kind === 'unseen_tool' ? 'a tool never called in the recording' : 'arguments never seen in the recording'} (${r.divergence!.tool})` } : { code: 1 },
    },
  ];
  let i = 1;
  for (const c of r.calls) {
    const system = c.request.messages.filter((m) => m.role === 'system').map((m) => m.content as string);
    const rest = c.request.messages.filter((m) => m.role !== 'system');
    spans.push({
      traceId, spanId: sid(i++), parentSpanId: rootId, name: `chat ${target.model}`, kind: KIND.client, startNs: c.startNs, endNs: c.endNs,
      attributes: {
        ...link, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': target.model, 'gen_ai.response.model': target.model,
        'gen_ai.request.temperature': c.request.temperature, 'gen_ai.request.max_tokens': c.request.max_tokens,
        'gen_ai.tool.definitions': c.request.tools.length ? JSON.stringify(c.request.tools) : undefined,
        'gen_ai.usage.input_tokens': c.answer.input_tokens, 'gen_ai.usage.output_tokens': c.answer.output_tokens,
        ...messageAttrs(system, rest, [{ message: { role: 'assistant', content: c.answer.content, tool_calls: c.answer.tool_calls }, finish_reason: c.answer.finish_reason }]),
      },
      status: { code: 1 },
    });
  }
  for (const t of r.tools) {
    spans.push({
      traceId, spanId: sid(i++), parentSpanId: rootId, name: `execute_tool ${t.call.function.name}`, kind: KIND.internal, startNs: t.startNs, endNs: t.endNs,
      attributes: {
        ...link, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': t.call.function.name, 'gen_ai.tool.call.id': t.call.id,
        'gen_ai.tool.call.arguments': t.call.function.arguments, 'gen_ai.tool.call.result': t.result ?? undefined,
        'loupe.replay.tool_match': t.how,
        'error.type': t.how === 'diverged' ? 'replay_divergence' : undefined,
      },
      status: t.how === 'diverged' ? { code: 2, message: `not in the recording: ${t.call.function.name}(${t.call.function.arguments})` } : { code: 1 },
    });
  }
  await importSpans(ctx, projectId, exportRequest('loupe-replay', { 'svc.project_id': projectId }, spans, { scope: { name: 'loupe.replay' }, sdkResource: {} }));
  return traceId;
}
