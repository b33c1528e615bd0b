/**
 * First/last message previews of conversation groups (semantics §7): the first user text of the
 * earliest span with input messages, and the non-user output text of the latest-ended span with
 * output messages, both over the spans the query's filters keep. Trimmed and cut at 280 characters
 * (code points) with '…' appended when longer.
 */
import type { Statement } from 'better-sqlite3';
import type { Sql } from './columns.js';

export const PREVIEW_CHARS = 280;

export function cutPreview(text: string): string {
  const t = text.trim();
  const chars = Array.from(t);
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS).join('')}…` : t;
}

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
    const user = input ? (JSON.parse(input) as Msg[]).find((m) => m.role === 'user' && m.content) : undefined;
    if (user?.content) groups[i]!.first_message = { role: 'user_message', text: cutPreview(user.content) };
    const output = last.get(...where.params, id) as string | undefined;
    const text = output
      ? (JSON.parse(output) as Msg[]).filter((m) => m.role !== 'user' && m.content).map((m) => m.content).join('\n\n')
      : '';
    if (text.trim()) groups[i]!.last_message = { role: 'assistant_message', text: cutPreview(text) };
  });
}
