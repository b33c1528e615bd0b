import type { Db } from './open.js';

/** SQL of the feedback domain. Owned by the feedback work stream. */
export interface FeedbackRepo {}

export function createFeedbackRepo(db: Db): FeedbackRepo {
  void db;
  return {};
}
