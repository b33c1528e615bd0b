/**
 * Reads of the chat views (semantics §4) and the trace waterfall: one trace's spans, light columns
 * from `spans`, messages from `span_payloads`, both read by key in the trace's partitions only (the
 * days its summary records, found by a subquery the server evaluates before choosing partitions).
 */
import type { ChatSpan } from '../../../domain/chat/span.js';
import type { SpanMessage, StatusCode } from '../../../domain/span.js';
import type { ConversationTurnIds, ReadOptions, TurnPage, TurnRef } from '../../ports.js';
import { groupTurns, turnIdsOf } from '../../turn-spans.js';
import type { ClickHouse } from '../connection.js';
import { big, int } from '../rows.js';
import { INHERITED_AGENT, INHERITED_CONVERSATION, wallMs } from '../../../domain/accounting.js';
import { isoFromNs } from '../../../domain/time.js';
import { join, limit, raw, sql, str, strs, u64, type Sql } from '../sql.js';
import { HANDOFF_KEYS } from '../../../domain/chat/transfer.js';
import { traceIn } from './keys.js';
import { inDays } from '../writer.js';
import { FINAL_SETTINGS } from './scope.js';
import { rowTitle } from '../../../domain/conversation-row.js';

/** More days than this are not written out: the read goes to every partition instead (a seek in each). */
const MAX_DAYS = 64;
const DAY_MS = 86_400_000;

/**
 * `day IN (the days holding these traces)`, from their trace rows, as date literals. Asked first, in a
 * query of its own: 18.16 does not choose partitions from an `IN (subquery)`, and a trace read with
 * the subquery inline took 74 ms where the same read with the days written out took 20 (+7 for this
 * query) on the bench's store. A trace spread over many days (a span without a start time is filed
 * under 1970-01-01) is read from every partition.
 */
export async function traceDays(ch: ClickHouse, projectId: string, traceIds: readonly string[], opts: ReadOptions): Promise<Sql> {
  const rows = await ch.rows<{ first_day: string; last_day: string }>(
    // trace_keys: the trace rows' days in 128-row granules (the writer's look-up, equal to trace_summaries'
    // projection: migrations 0004, 0010), so each id costs a small granule, not 8,192 rows.
    sql`SELECT first_day, last_day FROM trace_keys FINAL WHERE project_id = ${str(projectId)} AND ${traceIn(traceIds)} AND deleted = 0${FINAL_SETTINGS}`,
    opts,
  );
  const days = new Set<string>();
  for (const r of rows) {
    const from = Date.parse(`${r.first_day}T00:00:00Z`);
    const to = Date.parse(`${r.last_day}T00:00:00Z`);
    if ((to - from) / DAY_MS >= MAX_DAYS) return raw('1');
    for (let t = from; t <= to; t += DAY_MS) days.add(new Date(t).toISOString().slice(0, 10));
    if (days.size > MAX_DAYS) return raw('1');
  }
  return inDays(days);
}

// The bit values are bound parameters (raw() takes fixed text only).
const CHAT_LIGHT = sql`trace_id, span_id, parent_span_id, span_name, start_ns, end_ns, status_code, status_message, error_type, tool_call_id, operation_name, provider_name, agent_id,
   if(bitAnd(counted, ${u64(INHERITED_AGENT)}) != 0, NULL, agent_name) AS own_agent_name, agent_version,
   if(bitAnd(counted, ${u64(INHERITED_CONVERSATION)}) != 0, NULL, conversation_id) AS own_conversation_id, bitAnd(counted, 3) AS counting_bits, request_model, response_model, tool_name, reasoning_content, compaction_summary,
   compaction_items_before, compaction_items_after, svc_user_id, input_tokens, output_tokens, reasoning_tokens,
   cache_creation_input_tokens, cache_read_input_tokens, input_cost_usd, output_cost_usd, total_cost_usd, content_refs,
   tool_definitions, tool_call_arguments, tool_call_result`;

/** Only the handoff attributes of the span's custom string map (domain/chat/transfer.ts): most spans have none. */
const HANDOFF_COLUMNS = sql`arrayFilter((k, v) -> has(${strs(HANDOFF_KEYS)}, k), str_keys, str_values) AS handoff_keys,
   arrayFilter((v, k) -> has(${strs(HANDOFF_KEYS)}, k), str_values, str_keys) AS handoff_values`;

function handoffOf(r: Light): Record<string, string> | undefined {
  const keys = r.handoff_keys as string[] | undefined;
  const values = r.handoff_values as string[] | undefined;
  if (!keys?.length || !values) return undefined;
  return Object.fromEntries(keys.map((k, i) => [k, values[i] ?? '']));
}

type Light = Record<string, unknown> & { trace_id: string; span_id: string };
type Heavy = { trace_id: string; span_id: string; system_instructions: string; input_messages: string; output_messages: string };

const parseArray = <T>(text: string): T[] => {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

function toChatSpan(r: Light, h: Heavy | undefined): ChatSpan {
  const n = (k: string) => int(r[k] as string | null);
  return {
    trace_id: r.trace_id,
    span_id: r.span_id,
    parent_span_id: r.parent_span_id as string | null,
    span_name: r.span_name as string,
    start_ns: big(r.start_ns as string | null),
    end_ns: big(r.end_ns as string | null),
    status_code: r.status_code as StatusCode,
    counted: Number(r.counting_bits ?? 0),
    status_message: r.status_message as string | null,
    error_type: r.error_type as string | null,
    tool_call_id: r.tool_call_id as string | null,
    operation_name: r.operation_name as string | null,
    provider_name: r.provider_name as string | null,
    agent_id: r.agent_id as string | null,
    agent_name: r.own_agent_name as string | null,
    agent_version: r.agent_version as string | null,
    conversation_id: r.own_conversation_id as string | null,
    request_model: r.request_model as string | null,
    response_model: r.response_model as string | null,
    tool_name: r.tool_name as string | null,
    reasoning_content: r.reasoning_content as string | null,
    compaction_summary: r.compaction_summary as string | null,
    compaction_items_before: n('compaction_items_before'),
    compaction_items_after: n('compaction_items_after'),
    svc_user_id: r.svc_user_id as string | null,
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    reasoning_tokens: n('reasoning_tokens'),
    cache_creation_input_tokens: n('cache_creation_input_tokens'),
    cache_read_input_tokens: n('cache_read_input_tokens'),
    input_cost_usd: r.input_cost_usd as number | null,
    output_cost_usd: r.output_cost_usd as number | null,
    total_cost_usd: r.total_cost_usd as number | null,
    content_refs: r.content_refs as string[],
    tool_definitions: r.tool_definitions as string | null,
    tool_call_arguments: r.tool_call_arguments as string | null,
    tool_call_result: r.tool_call_result as string | null,
    system_instructions: h ? parseArray<string>(h.system_instructions).map(String) : [],
    input_messages: h ? parseArray<SpanMessage>(h.input_messages) : [],
    output_messages: h ? parseArray<SpanMessage>(h.output_messages) : [],
    custom_attrs_string: handoffOf(r),
  };
}

/**
 * The light rows and payloads of several traces of a project (optionally only the spans credited to a
 * conversation). A trace whose summary is missing (its write failed after the spans were stored) is
 * read across all partitions, so no stored span is ever invisible.
 */
async function readTraces(ch: ClickHouse, projectId: string, traceIds: readonly string[], conversationId: string | null, opts: ReadOptions) {
  // A turn: the trace's spans credited to the conversation (domain/accounting.ts; the column holds the credited id).
  const conv = conversationId === null ? raw('') : sql` AND conversation_id = ${str(conversationId)}`;
  const read = (days: Sql) =>
    Promise.all([
      ch.rows<Light>(sql`SELECT ${CHAT_LIGHT}, conversation_id AS credited_conversation_id, ${HANDOFF_COLUMNS} FROM spans FINAL
          WHERE project_id = ${str(projectId)} AND ${days} AND ${traceIn(traceIds)} AND deleted = 0${conv}${FINAL_SETTINGS}`, opts),
      ch.rows<Heavy>(
        sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages FROM span_payloads FINAL
            WHERE project_id = ${str(projectId)} AND ${days} AND ${traceIn(traceIds)} AND deleted = 0${FINAL_SETTINGS}`,
        opts,
      ),
    ]);
  let [light, heavy] = await read(await traceDays(ch, projectId, traceIds, opts));
  if (new Set(light.map((r) => r.trace_id)).size < traceIds.length) [light, heavy] = await read(raw('1'));
  const payload = new Map(heavy.map((h) => [`${h.trace_id}/${h.span_id}`, h]));
  return { light, spanOf: (r: Light) => toChatSpan(r, payload.get(`${r.trace_id}/${r.span_id}`)) };
}

/** Spans of several traces of a project (optionally only those credited to a conversation), grouped by trace in the order asked. */
export async function spansOfTraces(ch: ClickHouse, projectId: string, traceIds: readonly string[], conversationId: string | null, opts: ReadOptions): Promise<ChatSpan[][]> {
  if (!traceIds.length) return [];
  const { light, spanOf } = await readTraces(ch, projectId, traceIds, conversationId, opts);
  const byTrace = new Map<string, ChatSpan[]>(traceIds.map((t) => [t, []]));
  for (const r of light) byTrace.get(r.trace_id)?.push(spanOf(r));
  return traceIds.map((t) => byTrace.get(t)!);
}

/** TraceStore.turnsSpans: every span of the turns' traces in one read, kept per turn by credited conversation. */
export async function turnsSpans(ch: ClickHouse, projectId: string, turns: readonly TurnRef[], opts: ReadOptions): Promise<ChatSpan[][]> {
  if (!turns.length) return [];
  const { light, spanOf } = await readTraces(ch, projectId, [...new Set(turns.map((t) => t.trace_id))], null, opts);
  return groupTurns(turns, light, (r) => ({ trace_id: r.trace_id, conversation_id: (r.credited_conversation_id as string | null) ?? null, span: spanOf(r) }));
}

/** TraceStore.conversationsTurnIds: the turns of many conversations, oldest first, in one read. */
export async function conversationsTurnIds(ch: ClickHouse, projectId: string, conversationIds: readonly string[], opts: ReadOptions): Promise<ConversationTurnIds[]> {
  if (!conversationIds.length) return [];
  const rows = await ch.rows<{ conversation_id: string; trace_id: string }>(
    sql`SELECT conversation_id, trace_id FROM conversation_turns FINAL
        WHERE project_id = ${str(projectId)} AND conversation_id IN (${join(conversationIds.map((c) => sql`${str(c)}`), ', ')}) AND deleted = 0
        ORDER BY conversation_id, turn_start_ns ASC NULLS FIRST, trace_id ASC${FINAL_SETTINGS}`,
    opts,
  );
  return turnIdsOf(conversationIds, rows);
}

/** A page of a conversation's turns, newest first, with the turn count and the sum of turn costs. */
export async function conversationTurns(
  ch: ClickHouse, q: { project_id: string; conversation_id: string; limit: number; offset: number }, opts: ReadOptions,
): Promise<TurnPage> {
  const where = sql`project_id = ${str(q.project_id)} AND conversation_id = ${str(q.conversation_id)} AND deleted = 0`;
  const [page, totals] = await Promise.all([
    ch.page<{ trace_id: string }>(
      // The turns' page from thread_turns (migration 0013: conversation_turns' turn columns in 128-row granules; one
      // conversation's rows cost a small granule per part, not an 8,192-row one).
      sql`SELECT trace_id FROM thread_turns FINAL WHERE ${where}
          ORDER BY turn_start_ns DESC NULLS LAST, trace_id DESC${limit(q.offset, q.limit)}${FINAL_SETTINGS}`,
      opts,
    ),
    // Wall time's end: the latest end among the turns' spans (each turn row's end).
    ch.rows<{ n: string; cost: number | null; end_ns: string | null }>(
      sql`SELECT count() AS n, sum(cost_usd) AS cost, max(root_end_ns) AS end_ns FROM conversation_turns FINAL WHERE ${where}${FINAL_SETTINGS}`,
      opts,
    ),
  ]);
  // The conversation's list row (issue 18): the chat header shows exactly what the list shows (conversation_rows,
  // migration 0016: the same rows in 128-row granules).
  const row = await ch.rows<Record<string, string | number | string[] | null>>(
    sql`SELECT span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd, first_ns, last_ns, conversation_name, first_text, agent_names FROM conversation_rows FINAL
        WHERE project_id = ${str(q.project_id)} AND conversation_id = ${str(q.conversation_id)} AND kind = 'conversation' AND deleted = 0${FINAL_SETTINGS}`,
    opts,
  );
  const t = row[0];
  return {
    trace_ids: page.rows.map((r) => r.trace_id), total_turns: Number(totals[0]?.n ?? 0), total_cost_usd: totals[0]?.cost ?? null,
    totals: t
      ? {
          span_count: Number(t.span_count), error_count: Number(t.error_count), total_input_tokens: Number(t.input_tokens),
          total_output_tokens: Number(t.output_tokens), usage_known: Number(t.usage_spans) > 0, total_cost_usd: (t.cost_usd as number | null) ?? null,
          first_activity: t.first_ns == null ? null : isoFromNs(BigInt(t.first_ns as string)), last_activity: t.last_ns == null ? null : isoFromNs(BigInt(t.last_ns as string)),
          duration_ms: wallMs(big(t.first_ns as string | null), big(totals[0]?.end_ns ?? null)),
        }
      : null,
    title: t ? rowTitle({ kind: 'conversation', conversation_id: q.conversation_id, conversation_name: t.conversation_name as string | null, first_text: t.first_text as string | null, agent_names: t.agent_names as string[] }) : null,
  };
}
