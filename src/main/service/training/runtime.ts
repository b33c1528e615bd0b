/** The training runtime (job runner + trainer worker). Owned by the training work stream. */
export interface TrainingRuntime {
  close(): Promise<void>;
}
