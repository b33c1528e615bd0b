import type { Db } from './open.js';

/** SQL of the analytics domain. Owned by the analytics work stream. */
export interface AnalyticsRepo {}

export function createAnalyticsRepo(db: Db): AnalyticsRepo {
  void db;
  return {};
}
