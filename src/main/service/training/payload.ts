/**
 * A job's request body lives in a file while the job waits and runs (`training/payloads/<job>.json`
 * in the data directory) and is deleted when it ends; the row keeps a summary of it for the job view
 * (issue 11: payloads of up to 54 MiB were kept forever in the database). The summary is computed
 * where the body is parsed — the intake worker for HTTP bodies, the server thread for small IPC ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TrajectoryGroup } from '../../../shared/contract/training.js';

export const PAYLOAD_DIR = path.join('training', 'payloads');

/** Path of a job's payload file relative to the data directory. */
export const payloadRel = (jobId: string): string => path.join(PAYLOAD_DIR, `${jobId}.json`);

/** Writes a payload (without model_id, which the row holds) with owner-only permissions. */
export function writePayload(dataDir: string, rel: string, payload: Record<string, unknown>): void {
  const file = path.join(dataDir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(payload), { mode: 0o600 });
}

export function removePayload(dataDir: string, rel: string | null): void {
  if (rel) fs.rmSync(path.join(dataDir, rel), { force: true });
}

/** What the job view shows of an RL job once its payload is gone. */
export function rlSummary(groups: TrajectoryGroup[]): Record<string, number | null> {
  let trajectories = 0;
  let exceptions = 0;
  let sum = 0;
  for (const g of groups) {
    trajectories += g.trajectories.length;
    exceptions += g.exceptions?.length ?? 0;
    for (const t of g.trajectories) sum += t.reward;
  }
  return { trajectory_groups: groups.length, trajectories, exceptions, mean_reward: trajectories ? sum / trajectories : null };
}
