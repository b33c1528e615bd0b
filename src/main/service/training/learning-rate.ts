/**
 * Learning rates (issue 11): the hosted service's open client always sends its own defaults (RL 5e-6,
 * SFT 5e-5), tuned for LoRA on billion-parameter models; applied literally they leave the built-in
 * byte models where they are. So a client's `learning_rate` is read relative to the hosted default
 * and scaled to the built-in model's working rate (5e-6 → 1e-3, 5e-5 → 3e-3; the measured curve is
 * in docs/training.md). `loupe_learning_rate` beside it is taken literally. Remote backends get the
 * request as sent (they scale for themselves).
 *
 * A scaled SFT rate is capped (issue 22.14): the client's `train_sft_from_file` sends a schedule
 * peaking at 2e-4 (×60 → 1.2e-2), where the built-in models diverge. A schedule whose scaled peak is
 * above the cap is scaled down as a whole (its warm-up and decay keep their shape); the job's summary
 * and its training_started event say so.
 */
import { BUILTIN_RL_LR, BUILTIN_SFT_LR, BUILTIN_SFT_MAX_LR } from '../../training/config.js';

export const HOSTED_RL_LR = 5e-6;
export const HOSTED_SFT_LR = 5e-5;

export type Rates = number | number[];

export interface AppliedRate {
  /** What the engine uses. */
  applied: Rates;
  /** How it was derived: `scaled` from the client's rate, `literal` from loupe_learning_rate, `default` when none was sent. */
  how: 'scaled' | 'literal' | 'default';
  /** The client's learning_rate as sent (null when absent). */
  sent: Rates | null;
  /** Set when the scaled rate went above the built-in model's cap and was brought down to it. */
  capped?: { cap: number; scaled_peak: number; factor: number };
}

const scale = (r: Rates, k: number): Rates => (Array.isArray(r) ? r.map((x) => x * k) : r * k);

export function appliedRate(kind: 'rl' | 'sft', sent: Rates | null | undefined, literal: Rates | undefined): AppliedRate {
  const [hosted, builtin] = kind === 'rl' ? [HOSTED_RL_LR, BUILTIN_RL_LR] : [HOSTED_SFT_LR, BUILTIN_SFT_LR];
  if (literal !== undefined) return { applied: literal, how: 'literal', sent: sent ?? null };
  if (sent === null || sent === undefined) return { applied: builtin, how: 'default', sent: null };
  const scaled = scale(sent, builtin / hosted);
  const peak = Array.isArray(scaled) ? Math.max(...scaled) : scaled;
  if (kind === 'sft' && peak > BUILTIN_SFT_MAX_LR) {
    const factor = BUILTIN_SFT_MAX_LR / peak;
    return { applied: scale(scaled, factor), how: 'scaled', sent, capped: { cap: BUILTIN_SFT_MAX_LR, scaled_peak: peak, factor } };
  }
  return { applied: scaled, how: 'scaled', sent };
}

/**
 * The rate as a job's training_started event says it: numbers as they are, a per-batch schedule by
 * its peak and length (a schedule may have thousands of entries), the cap when one applied.
 */
export function describeRate(r: unknown): Record<string, unknown> | null {
  if (!r || typeof r !== 'object') return null;
  const { applied, sent, how, capped } = r as Partial<AppliedRate> & { how?: string };
  const brief = (x: Rates | null | undefined) => (Array.isArray(x) ? { peak: Math.max(...x), batches: x.length } : (x ?? null));
  return { how: how ?? null, sent: brief(sent), applied: brief(applied), ...(capped ? { capped } : {}) };
}
