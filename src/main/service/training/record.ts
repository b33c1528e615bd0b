/**
 * Each completion becomes a `chat` span in the model's project (semantics §9.7), unless the
 * `training.record_completions` setting is off. Recording never fails the completion: a store
 * error is reported on the log and the answer still goes out.
 */
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { CheckpointRow, ModelRow } from '../../store/ports.js';
import { blankSpan, spanId, spanMessage, splitSystem, traceId } from './spans.js';
import { projectOf } from './util.js';

export const RECORD_SETTING = 'training.record_completions';

export const recordingOn = async (ctx: ServiceContext): Promise<boolean> => (await ctx.app.settings.get(RECORD_SETTING)) !== 'false';

interface DoneCompletion {
  id: string;
  choices: { message: { content: string }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

/** Stores the completion's span; the caller checked `recordingOn` (settled before the answer is built). */
export async function recordCompletion(
  ctx: ServiceContext,
  model: ModelRow,
  checkpoint: CheckpointRow,
  input: OpParsedInput<'training.chatCompletions'>,
  c: DoneCompletion,
  startNs: bigint,
  endNs: bigint,
): Promise<void> {
  const project_id = projectOf(model);
  const s = blankSpan({ project_id, trace_id: traceId(), span_id: spanId(), span_name: `chat ${model.name}`, start_ns: startNs, end_ns: endNs });
  const { system, rest } = splitSystem(input.messages);
  Object.assign(s, {
    span_kind: 'CLIENT',
    status_code: 'OK',
    operation_name: 'chat',
    provider_name: 'loupe',
    request_model: input.model,
    response_model: `${model.entity}/${model.project}/${model.name}:step${checkpoint.step}`,
    response_id: c.id,
    output_type: 'text',
    svc_run_id: model.run_id,
    svc_run_step: checkpoint.step,
    request_temperature: input.temperature ?? null,
    request_max_tokens: input.max_completion_tokens ?? input.max_tokens ?? null,
    request_seed: input.seed ?? null,
    request_choice_count: input.n ?? null,
    request_stop_sequences: input.stop == null ? [] : typeof input.stop === 'string' ? [input.stop] : input.stop,
    input_tokens: c.usage.prompt_tokens,
    output_tokens: c.usage.completion_tokens,
    finish_reasons: c.choices.map((x) => x.finish_reason),
    system_instructions: system,
    input_messages: rest.map((m) => spanMessage(m)),
    output_messages: c.choices.map((x) => spanMessage({ role: 'assistant', content: x.message.content }, x.finish_reason)),
    custom_attrs_string: { 'loupe.model_id': model.id },
    custom_attrs_int: { 'loupe.checkpoint_step': checkpoint.step },
  });
  s.raw_span_dump = JSON.stringify({ name: s.span_name, traceId: s.trace_id, spanId: s.span_id, recordedBy: 'loupe-training' });
  try {
    ctx.store.ingest.writeBatch([s]);
    ctx.events.emit({ type: 'data.changed', project_id, tables: ['spans'] });
  } catch (err) {
    console.warn(`loupe: could not record the completion ${c.id} as a span: ${(err as Error).message}`);
  }
}
