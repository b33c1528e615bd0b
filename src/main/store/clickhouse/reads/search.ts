/**
 * `search` (full-text search over spans, newest first): the matching spans of matches.ts — the rule
 * every adapter applies (domain/search-text.ts), checked span by span — with each one's excerpt. A
 * common needle (more than `gatherDocs` candidate documents, a fixed 1,000: this walk reads candidates only) is walked day by day, newest first, and
 * stops once `limit` spans matched.
 */
import type { ReadOptions, SearchHit, SearchQuery } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { matcher } from './matches.js';
import { GATHER_DOCS } from '../../../domain/gather-bound.js';

export async function search(ch: ClickHouse, q: SearchQuery, opts: ReadOptions, gatherDocs = GATHER_DOCS): Promise<SearchHit[]> {
  const m = matcher(ch, q.project_id, q.text, opts, gatherDocs);
  const hits = await m.spans(q.limit);
  const snippets = await m.snippets(hits);
  return hits.map((h) => ({
    project_id: q.project_id, trace_id: h.trace_id, span_id: h.span_id, conversation_id: h.conversation_id,
    snippet: snippets.get(`${h.trace_id}/${h.span_id}`)?.text ?? '',
  }));
}
