/** Training settings: completion recording, the fallback base model and the remote trainer backends (keys are write-only). */
import { invalid } from '../../../shared/errors.js';
import type { OpParsedInput, OpOutput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { RECORD_SETTING, recordingOn } from './record.js';
import { backendSecret } from './remote.js';
import { runtimeOf } from './util.js';

const FALLBACK_SETTING = 'training.fallback_base_model';

/** The built-in base model serving base_model names the built-in trainer does not have. */
export async function fallbackBaseModel(ctx: ServiceContext): Promise<string> {
  const engine = runtimeOf(ctx).engine;
  const set = await ctx.app.settings.get(FALLBACK_SETTING);
  return set && engine.baseModels().includes(set) ? set : engine.defaultBaseModel();
}

export async function getSettings(ctx: ServiceContext): Promise<OpOutput<'training.getSettings'>> {
  return {
    record_completions: await recordingOn(ctx),
    fallback_base_model: await fallbackBaseModel(ctx),
    backends: (await ctx.app.training.listBackends()).map((b) => ({ name: b.name, base_url: b.base_url })),
  };
}

export async function updateSettings(input: OpParsedInput<'training.updateSettings'>, ctx: ServiceContext): Promise<OpOutput<'training.updateSettings'>> {
  const available = runtimeOf(ctx).engine.baseModels();
  if (input.fallback_base_model !== undefined && !available.includes(input.fallback_base_model)) {
    throw invalid('fallback_base_model', `must be a built-in base model: ${available.join(', ')}`, input.fallback_base_model);
  }
  const settings: Record<string, string> = {};
  if (input.record_completions !== undefined) settings[RECORD_SETTING] = String(input.record_completions);
  if (input.fallback_base_model !== undefined) settings[FALLBACK_SETTING] = input.fallback_base_model;
  // API keys go to the secrets store (encrypted with the OS keychain in the desktop app), the rows keep none.
  const secrets = ctx.secrets;
  await ctx.app.training.applySettings({
    settings,
    remove: input.remove_backends ?? [],
    put: (input.put_backends ?? []).map((b) => ({ name: b.name, base_url: b.base_url.replace(/\/+$/, ''), api_key: secrets ? '' : b.api_key })),
  });
  if (secrets) {
    for (const name of input.remove_backends ?? []) secrets.delete(backendSecret(name));
    for (const b of input.put_backends ?? []) secrets.set(backendSecret(b.name), b.api_key);
  }
  return getSettings(ctx);
}
