/**
 * Full-text search without an index (ClickHouse 18.16 has none; newer servers could add an n-gram
 * skip index, docs/clickhouse.md): a case-insensitive substring scan of the searched texts — the
 * same texts and meaning as the `$search` condition (expr.ts). Snippets are cut here from the first
 * matching text of each hit.
 */
import type { ReadOptions, SearchHit, SearchQuery } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { searchSql, withProject } from '../expr.js';
import { join, limit, sql, str } from '../sql.js';
import { FINAL_SETTINGS, currentSpans } from './scope.js';

const AROUND = 60;

/** An excerpt of `text` around the first case-insensitive match of `needle` (ASCII case folding, as the match). */
export function snippet(text: string, needle: string): string | null {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at < 0) return null;
  const from = Math.max(0, at - AROUND);
  const to = Math.min(text.length, at + needle.length + AROUND);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ').trim()}${to < text.length ? '…' : ''}`;
}

/** The texts of a span in the order a snippet prefers them: message contents, tool texts, attribute values. */
function textsOf(r: { input_messages: string | null; output_messages: string | null; tool_call_arguments: string | null; tool_call_result: string | null; str_values: string[] }): string[] {
  const contents = (json: string | null) => {
    if (!json) return [];
    try {
      return (JSON.parse(json) as { content?: string }[]).map((m) => m.content ?? '');
    } catch {
      return [json];
    }
  };
  return [...contents(r.input_messages), ...contents(r.output_messages), r.tool_call_arguments ?? '', r.tool_call_result ?? '', ...r.str_values];
}

type HitRow = { trace_id: string; span_id: string; conversation_id: string | null; day: string; tool_call_arguments: string | null; tool_call_result: string | null; str_values: string[] };

/** Matching spans of a project, newest first, with their snippets. */
export async function search(ch: ClickHouse, q: SearchQuery, opts: ReadOptions): Promise<SearchHit[]> {
  const project = str(q.project_id);
  const cond = withProject(q.project_id, () => searchSql(q.text));
  const hits = await ch.rows<HitRow>(
    sql`SELECT trace_id, span_id, conversation_id, day, tool_call_arguments, tool_call_result, str_values
        FROM ${currentSpans(sql`project_id = ${project} AND deleted = 0 AND ${cond}`)}
        ORDER BY start_ns DESC NULLS LAST, trace_id, span_id${limit(0, q.limit)}${FINAL_SETTINGS}`,
    opts,
  );
  return withSnippets(ch, q.project_id, q.text, hits, opts);
}

/** Snippets of hits (messages read for these spans only). */
export async function withSnippets(ch: ClickHouse, projectId: string, needle: string, hits: HitRow[], opts: ReadOptions): Promise<SearchHit[]> {
  if (!hits.length) return [];
  const messages = await ch.rows<{ trace_id: string; span_id: string; input_messages: string; output_messages: string }>(
    sql`SELECT trace_id, span_id, input_messages, output_messages FROM span_payloads FINAL
        WHERE project_id = ${str(projectId)} AND deleted = 0 AND (trace_id, span_id) IN (${join(hits.map((h) => sql`(${str(h.trace_id)}, ${str(h.span_id)})`), ', ')})${FINAL_SETTINGS}`,
    opts,
  );
  const byKey = new Map(messages.map((m) => [`${m.trace_id}/${m.span_id}`, m]));
  return hits.map((h) => {
    const m = byKey.get(`${h.trace_id}/${h.span_id}`);
    const texts = textsOf({ ...h, input_messages: m?.input_messages ?? null, output_messages: m?.output_messages ?? null });
    let cut: string | null = null;
    for (const t of texts) if ((cut = snippet(t, needle)) !== null) break;
    return { project_id: projectId, trace_id: h.trace_id, span_id: h.span_id, conversation_id: h.conversation_id, snippet: cut ?? '' };
  });
}
