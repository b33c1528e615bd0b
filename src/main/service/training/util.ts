/** Small helpers of the training service: ids, times, checkpoint directories, the runtime handle. */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { unavailable } from '../../../shared/errors.js';
import { isoFromUs } from '../../domain/time.js';
import type { ServiceContext } from '../context.js';

export type JobEventType = 'training_started' | 'gradient_step' | 'training_ended' | 'training_failed';

export const nowUs = (): number => Date.now() * 1000;
export const iso = (us: number | null): string | null => (us === null ? null : isoFromUs(us));
export const newId = (): string => randomUUID();

/** `<dataDir>/models/<model_id>/` holds one `step<N>/` directory of weight files per checkpoint. */
export const modelDir = (dataDir: string, modelId: string): string => path.join(dataDir, 'models', modelId);
export const checkpointDir = (dataDir: string, modelId: string, step: number): string => path.join(modelDir(dataDir, modelId), `step${step}`);

/** The model's project in the trace store: `<entity>/<project>` (semantics §1 convention). */
export const projectOf = (m: { entity: string; project: string }): string => `${m.entity}/${m.project}`;

export function runtimeOf(ctx: ServiceContext): NonNullable<ServiceContext['training']> {
  if (!ctx.training) throw unavailable('The training runtime is not started');
  return ctx.training;
}

/** Mean of each numeric key over a list of metric records (keys missing in some records average over those present). */
export function averageMetrics(list: Record<string, number | undefined>[]): Record<string, number> {
  const sum = new Map<string, { s: number; n: number }>();
  for (const m of list) {
    for (const [k, v] of Object.entries(m)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const cur = sum.get(k) ?? { s: 0, n: 0 };
      cur.s += v;
      cur.n += 1;
      sum.set(k, cur);
    }
  }
  return Object.fromEntries([...sum].map(([k, { s, n }]) => [k, s / n]));
}

export { errorMessage } from '../../../shared/errors.js';
