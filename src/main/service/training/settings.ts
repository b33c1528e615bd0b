/** Training settings: completion recording and the remote trainer backends (keys are write-only). */
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { RECORD_SETTING, recordingOn } from './record.js';

export function getSettings(ctx: ServiceContext): OpOutput<'training.getSettings'> {
  return {
    record_completions: recordingOn(ctx),
    backends: ctx.store.training.listBackends().map((b) => ({ name: b.name, base_url: b.base_url })),
  };
}

export function updateSettings(input: OpParsedInput<'training.updateSettings'>, ctx: ServiceContext): OpOutput<'training.updateSettings'> {
  const repo = ctx.store.training;
  repo.transaction(() => {
    if (input.record_completions !== undefined) ctx.store.meta.setSetting(RECORD_SETTING, String(input.record_completions));
    for (const name of input.remove_backends ?? []) repo.removeBackend(name);
    for (const b of input.put_backends ?? []) repo.putBackend({ name: b.name, base_url: b.base_url.replace(/\/+$/, ''), api_key: b.api_key });
  });
  return getSettings(ctx);
}
