/** Training settings: completion recording and the remote trainer backends (keys are write-only). */
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { RECORD_SETTING, recordingOn } from './record.js';

export async function getSettings(ctx: ServiceContext): Promise<OpOutput<'training.getSettings'>> {
  return {
    record_completions: await recordingOn(ctx),
    backends: (await ctx.app.training.listBackends()).map((b) => ({ name: b.name, base_url: b.base_url })),
  };
}

export async function updateSettings(input: OpParsedInput<'training.updateSettings'>, ctx: ServiceContext): Promise<OpOutput<'training.updateSettings'>> {
  await ctx.app.training.applySettings({
    settings: input.record_completions === undefined ? {} : { [RECORD_SETTING]: String(input.record_completions) },
    remove: input.remove_backends ?? [],
    put: (input.put_backends ?? []).map((b) => ({ name: b.name, base_url: b.base_url.replace(/\/+$/, ''), api_key: b.api_key })),
  });
  return getSettings(ctx);
}
