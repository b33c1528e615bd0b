/**
 * Full-text search without a full-text index: a case-insensitive substring test over the texts a
 * span carries (messages, tool arguments and results, string attributes), newest spans first. Exact
 * and simple; it scans the project's spans, so the FTS index of issue 8 item 4 replaces it.
 */
import type { Statement } from 'better-sqlite3';
import type { SearchHit, SearchQuery } from '../ports.js';

const TEXTS = ['d.input_messages', 'd.output_messages', 'd.tool_call_arguments', 'd.tool_call_result', 's.custom_attrs_string'];

/** Up to `around` characters each side of the first match, on one line. */
export function snippetOf(text: string, needle: string, around = 60): string {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at < 0) return '';
  const start = Math.max(0, at - around);
  const end = Math.min(text.length, at + needle.length + around);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

export function searchSpans(prep: (sql: string) => Statement, q: SearchQuery): SearchHit[] {
  const needle = q.text.toLowerCase();
  const rows = prep(
    `SELECT s.project_id, s.trace_id, s.span_id, s.conversation_id, ${TEXTS.map((c, i) => `${c} AS t${i}`).join(', ')}
       FROM spans s JOIN span_details d ON d.span_rowid = s.id
      WHERE s.project_id = ? AND (${TEXTS.map((c) => `instr(lower(${c}), ?) > 0`).join(' OR ')})
      ORDER BY s.start_ns DESC, s.id DESC LIMIT ?`,
  ).all(q.project_id, ...TEXTS.map(() => needle), q.limit) as Record<string, string | null>[];
  return rows.map((r) => {
    const text = TEXTS.map((_, i) => r[`t${i}`]).find((t) => t != null && t.toLowerCase().includes(needle)) ?? '';
    return { project_id: r.project_id!, trace_id: r.trace_id!, span_id: r.span_id!, conversation_id: r.conversation_id ?? null, snippet: snippetOf(text, q.text) };
  });
}
