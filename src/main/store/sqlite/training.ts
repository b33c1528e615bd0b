import type { Db } from './open.js';

/** SQL of the training domain. Owned by the training work stream. */
export interface TrainingRepo {}

export function createTrainingRepo(db: Db): TrainingRepo {
  void db;
  return {};
}
