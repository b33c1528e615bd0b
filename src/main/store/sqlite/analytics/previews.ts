/**
 * First/last message previews of conversation groups (semantics §7): the first user text of the
 * earliest span with input messages, and the non-user output text of the latest-ended span with
 * output messages, both over the spans the query's filters keep, cut as every preview (domain/previews.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { Sql } from './columns.js';
import { messagesPreview } from '../../../domain/previews.js';

type Msg = { role?: string; content?: string };

export function previews(
  prep: (sql: string) => Statement,
  where: Sql,
  groups: { first_message: unknown; last_message: unknown }[],
  conversationIds: (string | null)[],
): void {
  const first = prep(
    `SELECT d.input_messages AS m FROM spans s JOIN span_details d ON d.span_rowid = s.id
      WHERE ${where.sql} AND s.conversation_id = ? AND d.input_messages <> '[]' ORDER BY s.start_ns ASC, s.id ASC LIMIT 1`,
  ).pluck();
  const last = prep(
    `SELECT d.output_messages AS m FROM spans s JOIN span_details d ON d.span_rowid = s.id
      WHERE ${where.sql} AND s.conversation_id = ? AND d.output_messages <> '[]' ORDER BY s.end_ns DESC, s.id DESC LIMIT 1`,
  ).pluck();
  conversationIds.forEach((id, i) => {
    if (id == null) return;
    const input = first.get(...where.params, id) as string | undefined;
    const firstText = input ? messagesPreview(JSON.parse(input) as Msg[], 'input') : null;
    if (firstText != null) groups[i]!.first_message = { role: 'user_message', text: firstText };
    const output = last.get(...where.params, id) as string | undefined;
    const lastText = output ? messagesPreview(JSON.parse(output) as Msg[], 'output') : null;
    if (lastText != null) groups[i]!.last_message = { role: 'assistant_message', text: lastText };
  });
}
