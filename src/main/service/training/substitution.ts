/**
 * Saying on the wire what really runs (issue 22.12). A hosted base model name (e.g.
 * `OpenPipe/Qwen3-14B-Instruct`) is accepted and served by a built-in byte model; `runtime_model`
 * says so in model answers, but the open client drops that field. So every model answer and every
 * completion carries response headers, and each job's `training_started` event says it in its data
 * (the client's event type is a closed list of four: the fact rides in an existing event's data).
 */
import type { ModelRow } from '../../store/ports.js';

/** Always sent: the model the answer really came from. */
export const RUNTIME_HEADER = 'x-loupe-runtime-model';
/** Sent only when the requested base model is served by another one. */
export const SUBSTITUTION_HEADER = 'x-loupe-substitution';

type Named = Pick<ModelRow, 'base_model' | 'runtime_model' | 'backend'>;

export const runtimeName = (m: Named): string => m.runtime_model ?? m.base_model;

/** True when a base model name runs on a different (built-in) model. Remote models run as named. */
export const substituted = (m: Named): boolean => !m.backend && runtimeName(m) !== m.base_model;

/** The sentence a user reads: what was asked, what runs. */
export const substitutionNote = (m: Named): string =>
  `${m.base_model} is not a built-in model: it runs on the built-in ${runtimeName(m)} (a small byte-level model trained from scratch on this machine)`;

/** Header values are ASCII: a base model name with other characters travels percent-encoded. */
const ascii = (s: string): string => (/^[\x20-\x7e]*$/.test(s) ? s : encodeURIComponent(s));

/** The response headers of an answer about (or from) this model. */
export function modelHeaders(m: Named): Record<string, string> {
  return {
    [RUNTIME_HEADER]: ascii(runtimeName(m)),
    ...(substituted(m) ? { [SUBSTITUTION_HEADER]: ascii(`${m.base_model} -> ${runtimeName(m)}`) } : {}),
  };
}

/** What the job's training_started event says about the model it trains. */
export function modelFacts(m: Named): Record<string, unknown> {
  return {
    base_model: m.base_model,
    runtime_model: runtimeName(m),
    substituted: substituted(m),
    ...(substituted(m) ? { note: substitutionNote(m) } : {}),
  };
}

/**
 * `system_fingerprint` of a completion: the runtime model and step, prefixed `loupe-` once (built-in
 * names already start with it: `loupe-loupe-tiny-bytes-step3` before).
 */
export const fingerprint = (m: Named, step: number): string => {
  const r = runtimeName(m);
  return `${r.startsWith('loupe-') ? r : `loupe-${r}`}-step${step}`;
};
