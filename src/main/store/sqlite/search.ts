/**
 * TraceStore.search on SQLite: the spans of a project whose texts hold the query (case-insensitive
 * substring), newest first, with a snippet. The full-text index (fts.ts, trigrams) finds candidate
 * traces for queries of 3+ characters; shorter ones check every span of the project with the same
 * text rule (`$search` as SQL), which is exact and as slow as a scan.
 */
import type { Statement } from 'better-sqlite3';
import type { SearchHit, SearchQuery } from '../ports.js';
import type { SearchReader } from './fts.js';
import { searchSql } from './fts.js';
import { snippetOf } from '../../domain/search-text.js';

export function searchSpans(prep: (sql: string) => Statement, reader: SearchReader, q: SearchQuery): SearchHit[] {
  const hits: SearchHit[] = [];
  const indexed = reader.eachMatch(q.project_id, q.text, (spans) => {
    for (const s of spans) {
      hits.push({ project_id: q.project_id, trace_id: s.trace_id, span_id: s.span_id, conversation_id: s.conversation_id, snippet: s.snippet.text });
      if (hits.length >= q.limit) return false;
    }
    return true;
  });
  if (indexed) return hits;
  const cond = searchSql(q.text);
  const rows = prep(
    `SELECT s.trace_id, s.span_id, s.conversation_id, d.input_messages, d.output_messages, d.tool_call_arguments, d.tool_call_result, s.custom_attrs_string
       FROM spans s JOIN span_details d ON d.span_rowid = s.id
      WHERE s.project_id = ? AND ${cond.sql} ORDER BY s.start_ns DESC, s.id DESC LIMIT ?`,
  ).all(q.project_id, ...cond.params, q.limit) as Record<string, string | null>[];
  return rows.map((r) => {
    const text = [r.input_messages, r.output_messages, r.tool_call_arguments, r.tool_call_result, r.custom_attrs_string].find((t) => t?.toLowerCase().includes(q.text.toLowerCase())) ?? '';
    return { project_id: q.project_id, trace_id: r.trace_id!, span_id: r.span_id!, conversation_id: r.conversation_id ?? null, snippet: snippetOf(text, q.text)?.text ?? '' };
  });
}
