/**
 * Each completion becomes a `chat` span in the model's project (semantics §9.7), stored through the
 * OTLP importer like any exporter's span (spans.ts), unless the `training.record_completions`
 * setting is off (the caller checks `recordingOn`). Recording never fails the completion: a store error is reported on the log and the
 * answer still goes out.
 */
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, ModelRow } from '../../store/ports.js';
import { KIND, STATUS_OK, messageAttrs, spanId, spansRequest, splitSystem, traceId } from './spans.js';
import { importSpans } from './import-spans.js';
import { projectOf } from './util.js';

export const RECORD_SETTING = 'training.record_completions';

export const recordingOn = async (ctx: ServiceContext): Promise<boolean> => (await ctx.app.settings.get(RECORD_SETTING)) !== 'false';

interface DoneCompletion {
  id: string;
  choices: { message: { role: string; content: string | null; tool_calls?: unknown }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

/**
 * The ids of the span a completion is recorded as, chosen before the answer is built: each choice
 * carries them (`loupe: {trace_id, span_id}`), and the Python and JS OpenAI clients keep unknown
 * fields, so a `/log` trajectory holding the choice names its span (rollout-join.ts).
 */
export const newSpanRef = (): { trace_id: string; span_id: string } => ({ trace_id: traceId(), span_id: spanId() });

/** Stores the completion's span; the caller checked `recordingOn` (settled before the answer is built). */
export async function recordCompletion(
  ctx: ServiceContext,
  ref: { trace_id: string; span_id: string },
  model: ModelRow,
  checkpoint: CheckpointRow,
  input: OpParsedInput<'training.chatCompletions'>,
  c: DoneCompletion,
  startNs: bigint,
  endNs: bigint,
): Promise<void> {
  const { system, rest } = splitSystem(input.messages);
  const stop = input.stop == null ? undefined : typeof input.stop === 'string' ? [input.stop] : input.stop;
  const project = projectOf(model);
  const request = spansRequest(project, [
    {
      traceId: ref.trace_id,
      spanId: ref.span_id,
      name: `chat ${model.name}`,
      kind: KIND.client,
      startNs,
      endNs,
      status: STATUS_OK,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'loupe',
        'gen_ai.request.model': input.model,
        'gen_ai.response.model': `${model.entity}/${model.project}/${model.name}:step${checkpoint.step}`,
        'gen_ai.response.id': c.id,
        'gen_ai.output.type': 'text',
        'svc.run_id': model.run_id,
        'svc.run_step': checkpoint.step,
        'gen_ai.request.temperature': input.temperature ?? undefined,
        'gen_ai.request.top_p': input.top_p ?? undefined,
        'gen_ai.request.max_tokens': input.max_completion_tokens ?? input.max_tokens ?? undefined,
        'gen_ai.request.seed': input.seed ?? undefined,
        'gen_ai.request.choice.count': input.n ?? undefined,
        'gen_ai.request.stop_sequences': stop,
        'gen_ai.usage.input_tokens': c.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': c.usage.completion_tokens,
        ...messageAttrs(system, rest, c.choices),
        'loupe.model_id': model.id,
        'loupe.checkpoint_step': checkpoint.step,
      },
    },
  ]);
  // Awaited by the caller: the span is stored before the answer leaves (a client reading traces right after sees it).
  await importSpans(ctx, project, request).catch((err: unknown) => console.warn(`loupe: could not record the completion ${c.id} as a span: ${(err as Error).message}`));
}
