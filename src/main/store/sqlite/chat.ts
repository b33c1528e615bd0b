import type { Db } from './open.js';

/** SQL of the chat domain. Owned by the chat work stream. */
export interface ChatRepo {}

export function createChatRepo(db: Db): ChatRepo {
  void db;
  return {};
}
