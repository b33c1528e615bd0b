/**
 * Learning rates (issue 11): the hosted service's open client always sends its own defaults (RL 5e-6,
 * SFT 5e-5), tuned for LoRA on billion-parameter models; applied literally they leave the built-in
 * byte models where they are. So a client's `learning_rate` is read relative to the hosted default
 * and scaled to the built-in model's working rate (5e-6 → 1e-3, 5e-5 → 3e-3; the measured curve is
 * in docs/training.md). `loupe_learning_rate` beside it is taken literally. Remote backends get the
 * request as sent (they scale for themselves).
 */
import { BUILTIN_RL_LR, BUILTIN_SFT_LR } from '../../training/config.js';

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
}

const scale = (r: Rates, k: number): Rates => (Array.isArray(r) ? r.map((x) => x * k) : r * k);

export function appliedRate(kind: 'rl' | 'sft', sent: Rates | null | undefined, literal: Rates | undefined): AppliedRate {
  const [hosted, builtin] = kind === 'rl' ? [HOSTED_RL_LR, BUILTIN_RL_LR] : [HOSTED_SFT_LR, BUILTIN_SFT_LR];
  if (literal !== undefined) return { applied: literal, how: 'literal', sent: sent ?? null };
  if (sent === null || sent === undefined) return { applied: builtin, how: 'default', sent: null };
  return { applied: scale(sent, builtin / hosted), how: 'scaled', sent };
}
