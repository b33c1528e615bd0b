/** Reads of `POST /export`: the traces of a selection, then each trace's spans as received. */
import type { ExportSelection, ExportSpan, ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { join, raw, sql, str, strs, type Sql } from '../sql.js';
import { traceDays } from './chat.js';
import { traceIn } from './keys.js';
import { FINAL_SETTINGS } from './scope.js';
import { receivedRawSpan, type RawSpanParts } from '../rows.js';

export async function exportTraceIds(ch: ClickHouse, sel: ExportSelection, opts: ReadOptions): Promise<string[]> {
  const project = str(sel.project_id);
  let q;
  if (!sel.conversation_ids && !sel.trace_ids) {
    q = sql`SELECT trace_id FROM trace_summaries FINAL WHERE project_id = ${project} AND deleted = 0 ORDER BY trace_id${FINAL_SETTINGS}`;
  } else {
    const ids = sel.trace_ids ?? [];
    const convs = sel.conversation_ids ?? [];
    // Asked trace ids are exported as asked (an unknown one yields an empty trace), like the SQLite adapter.
    const asked = ids.length ? sql`SELECT arrayJoin(${strs(ids)}) AS trace_id` : null;
    const ofConversations = convs.length
      ? sql`SELECT DISTINCT trace_id FROM conversation_turns FINAL WHERE project_id = ${project} AND deleted = 0
            AND conversation_id IN (${join(convs.map((c) => sql`${str(c)}`), ', ')})`
      : null;
    const parts = [asked, ofConversations].filter((p) => p !== null);
    if (!parts.length) return [];
    q = sql`SELECT DISTINCT trace_id FROM (${join(parts, ' UNION ALL ')}) ORDER BY trace_id${FINAL_SETTINGS}`;
  }
  return (await ch.rows<{ trace_id: string }>(q, opts)).map((r) => r.trace_id);
}

export async function exportTraceSpans(ch: ClickHouse, projectId: string, traceId: string, opts: ReadOptions): Promise<ExportSpan[]> {
  const project = str(projectId);
  // Three reads joined here: ClickHouse 18.16 allows one JOIN per SELECT, and these are tiny.
  const read = (days: Sql) =>
    Promise.all([
      ch.rows<{ trace_id: string; span_id: string; parent_span_id: string | null; start_ns: string | null; end_ns: string | null; scope_name: string | null; scope_version: string | null; resource_id: string }>(
        sql`SELECT trace_id, span_id, parent_span_id, start_ns, end_ns, scope_name, scope_version, resource_id FROM spans FINAL
            WHERE project_id = ${project} AND ${days} AND ${traceIn([traceId])} AND deleted = 0
            ORDER BY start_ns ASC NULLS FIRST, span_id ASC${FINAL_SETTINGS}`,
        opts,
      ),
      ch.rows<Pick<RawSpanParts, 'span_id' | 'raw_span' | 'input_messages' | 'output_messages'>>(
        sql`SELECT span_id, raw_span, input_messages, output_messages FROM span_payloads FINAL WHERE project_id = ${project} AND ${days} AND ${traceIn([traceId])} AND deleted = 0${FINAL_SETTINGS}`,
        opts,
      ),
    ]);
  let [spans, raws] = await read(await traceDays(ch, projectId, [traceId], opts));
  if (!spans.length) [spans, raws] = await read(raw('1'));
  if (!spans.length) return [];
  const resourceIds = [...new Set(spans.map((s) => s.resource_id))];
  const resources = await ch.rows<{ resource_id: string; attributes: string }>(
    sql`SELECT resource_id, any(attributes) AS attributes FROM resources WHERE project_id = ${project}
        AND resource_id IN (${join(resourceIds.map((r) => sql`${str(r)}`), ', ')}) GROUP BY resource_id`,
    opts,
  );
  const attrs = new Map(resources.map((r) => [r.resource_id, r.attributes]));
  const rawOf = new Map(raws.map((r) => [r.span_id, r]));
  return spans.map((s) => {
    const payload = rawOf.get(s.span_id);
    return {
      scope_name: s.scope_name,
      scope_version: s.scope_version,
      resource_attributes: attrs.get(s.resource_id) ?? '{}',
      raw_span: payload ? receivedRawSpan({ ...s, ...payload }) : '{}',
    };
  });
}
