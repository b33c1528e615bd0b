/**
 * Conversation summaries (migration 0006), maintained at ingest inside the write transaction.
 *
 * Per turn (a conversation's trace), traces.ts stores the turn's contribution in its
 * conversation_turns row: span and error counts, tokens and cost by the one counting rule (the
 * header of the turn as the conversation chat builds it), last activity, name, agents, models and
 * the two preview candidates (by span id since migration 0013: their texts are read from the span's
 * body when the turn holds its conversation's first or last message). A conversation's row in conversation_summaries is then re-aggregated
 * from its turn rows (a dozen rows read through the primary key) whenever a batch touched one of its
 * traces: exact after re-imports and deletes, since nothing is ever subtracted. A trace in which no
 * span carries a conversation id gets a row of kind 'trace' computed from the trace itself.
 */
import type { Db } from '../open.js';
import type { TurnHeader } from '../../../domain/chat/header.js';
import { cutPreview } from '../analytics/previews.js';

/** Bits of spans.counted beyond the counting rule's (COUNTS_USAGE 1, COUNTS_COST 2). */
export const HAS_INPUT = 4;
export const HAS_OUTPUT = 8;

/** The fields of a span a turn's contribution reads. */
export interface TurnSpan {
  span_id: string;
  start_ns: bigint | null;
  end_ns: bigint | null;
  status_code: string;
  agent_name: string | null;
  request_model: string | null;
  conversation_name: string | null;
  counted: number;
}

/** What one turn (or one conversation-less trace) contributes to its conversations-list row. */
export interface TurnContribution {
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  first_ns: bigint | null;
  last_ns: bigint | null;
  conversation_name: string | null;
  agent_names: string;
  request_models: string;
  first_input_ns: bigint | null;
  /** The span whose first user text is the first message (null: no span with input messages). */
  first_span_id: string | null;
  first_text: string | null;
  last_output_ns: bigint | null;
  /** The span whose non-user output text is the last message. */
  last_span_id: string | null;
  last_text: string | null;
}

/** Reads the preview text of a candidate span (its messages may be in the batch or only stored). */
export type PreviewText<S extends TurnSpan> = (span: S, which: 'input' | 'output') => string | null;

const distinctJson = (xs: (string | null)[]) => JSON.stringify([...new Set(xs.filter((x): x is string => !!x))].sort());
const before = (a: bigint | null, b: bigint | null) => a != null && (b == null || a < b);

/**
 * First message: the first user text of the earliest span (start, then span_id) with input
 * messages. Last message: the non-user output text of the latest-ended span (end, then span_id)
 * with output messages (semantics §7's preview rules, over the turn's spans).
 */
export function turnContribution<S extends TurnSpan>(spans: readonly S[], h: TurnHeader, text: PreviewText<S>): TurnContribution {
  let first: bigint | null = null;
  let last: bigint | null = null;
  let errors = 0;
  let name: { ns: bigint | null; v: string } | null = null;
  let firstIn: S | null = null;
  let lastOut: S | null = null;
  for (const s of spans) {
    if (s.start_ns != null && (first == null || s.start_ns < first)) first = s.start_ns;
    const end = s.end_ns ?? s.start_ns;
    if (end != null && (last == null || end > last)) last = end;
    if (s.status_code === 'ERROR') errors++;
    if (s.conversation_name && (!name || before(s.start_ns, name.ns))) name = { ns: s.start_ns, v: s.conversation_name };
    if (s.counted & HAS_INPUT && (!firstIn || before(s.start_ns, firstIn.start_ns) || (s.start_ns === firstIn.start_ns && s.span_id < firstIn.span_id))) firstIn = s;
    if (s.counted & HAS_OUTPUT && (!lastOut || before(lastOut.end_ns, s.end_ns) || (s.end_ns === lastOut.end_ns && s.span_id > lastOut.span_id))) lastOut = s;
  }
  const firstText = firstIn ? text(firstIn, 'input') : null;
  const lastText = lastOut ? text(lastOut, 'output') : null;
  return {
    span_count: spans.length,
    error_count: errors,
    input_tokens: h.total_input_tokens,
    output_tokens: h.total_output_tokens,
    cost_usd: h.total_cost_usd,
    first_ns: first,
    last_ns: last,
    conversation_name: name?.v ?? null,
    agent_names: distinctJson(spans.map((s) => s.agent_name)),
    request_models: distinctJson(spans.map((s) => s.request_model)),
    first_input_ns: firstIn?.start_ns ?? null,
    first_span_id: firstIn?.span_id ?? null,
    first_text: previewCut(firstText, 'input'),
    last_output_ns: lastOut?.end_ns ?? null,
    last_span_id: lastOut?.span_id ?? null,
    last_text: previewCut(lastText, 'output'),
  };
}

/** A preview as stored: cut to 280 code points; an output preview of only blanks is none. */
function previewCut(text: string | null, which: 'input' | 'output'): string | null {
  if (which === 'input') return text ? cutPreview(text) : null;
  return text?.trim() ? cutPreview(text) : null;
}

/** The preview text of a span's messages: first user text of the input, non-user texts of the output. */
export function previewOf(messages: { role?: string; content?: string }[], which: 'input' | 'output'): string | null {
  if (which === 'input') return messages.find((m) => m.role === 'user' && m.content)?.content ?? null;
  const text = messages.filter((m) => m.role !== 'user' && m.content).map((m) => m.content).join('\n\n');
  return text || null;
}

export const CONVERSATION_SUMMARY_SQL = {
  turns: `SELECT trace_id, turn_start_ns, span_count, error_count, input_tokens, output_tokens, cost_usd, last_ns,
    conversation_name, agent_names, request_models, first_input_ns, first_span_id, last_output_ns, last_span_id
    FROM conversation_turns WHERE project_id = ? AND conversation_id = ?`,
  // A preview candidate's messages (the stored span's body), when the batch did not carry its text.
  spanMessages: `SELECT CASE WHEN ? = 'input' THEN d.input_messages ELSE d.output_messages END
    FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ? AND s.trace_id = ? AND s.span_id = ?`,
  upsert: `INSERT INTO conversation_summaries (project_id, kind, conversation_id, conversation_name, turn_count, span_count,
    error_count, input_tokens, output_tokens, cost_usd, first_ns, last_ns, agent_names, request_models, first_text, last_text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (project_id, conversation_id, kind) DO UPDATE SET conversation_name = excluded.conversation_name,
    turn_count = excluded.turn_count, span_count = excluded.span_count, error_count = excluded.error_count,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd,
    first_ns = excluded.first_ns, last_ns = excluded.last_ns, agent_names = excluded.agent_names,
    request_models = excluded.request_models, first_text = excluded.first_text, last_text = excluded.last_text`,
  remove: `DELETE FROM conversation_summaries WHERE project_id = ? AND kind = ? AND conversation_id = ?`,
} as const;

interface TurnRow {
  trace_id: string;
  turn_start_ns: bigint | null;
  span_count: bigint;
  error_count: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  cost_usd: number | null;
  last_ns: bigint | null;
  conversation_name: string | null;
  agent_names: string;
  request_models: string;
  first_input_ns: bigint | null;
  first_span_id: string | null;
  last_output_ns: bigint | null;
  last_span_id: string | null;
}

export interface ConversationSummaries {
  /** Re-aggregates the row of each conversation from its turn rows (deleted when it has none left). */
  refreshConversations(projectId: string, conversationIds: Iterable<string>): void;
  /** Writes (or, with null, deletes) the row of a trace that carries no conversation id. */
  setTraceRow(projectId: string, traceId: string, c: TurnContribution | null): void;
  /** A stored span's preview text, uncut (first user text of its input, non-user text of its output). */
  storedPreview(projectId: string, traceId: string, spanId: string, which: 'input' | 'output'): string | null;
  /** The preview text of a candidate span the writer has at hand (kept until forgetPreviews). */
  knownPreview(projectId: string, traceId: string, spanId: string, which: 'input' | 'output', text: string | null): void;
  forgetPreviews(): void;
}

export function createConversationSummaries(db: Db): ConversationSummaries {
  const turns = db.prepare(CONVERSATION_SUMMARY_SQL.turns).safeIntegers(true);
  const upsert = db.prepare(CONVERSATION_SUMMARY_SQL.upsert);
  const remove = db.prepare(CONVERSATION_SUMMARY_SQL.remove);
  const spanMessages = db.prepare<[string, string, string, string], string>(CONVERSATION_SUMMARY_SQL.spanMessages).pluck();
  const storedPreview = (projectId: string, traceId: string, spanId: string, which: 'input' | 'output') => {
    const json = spanMessages.get(which, projectId, traceId, spanId);
    return json ? previewOf(JSON.parse(json) as { role?: string; content?: string }[], which) : null;
  };
  const known = new Map<string, string | null>();
  const keyOf = (projectId: string, traceId: string, spanId: string, which: string) => `${projectId}\u0000${traceId}\u0000${spanId}\u0000${which}`;
  /** The preview of a turn row's candidate: known from the batch, else read from the span's body. */
  const preview = (projectId: string, row: TurnRow | null, which: 'input' | 'output'): string | null => {
    const spanId = row && (which === 'input' ? row.first_span_id : row.last_span_id);
    if (!row || spanId == null) return null;
    const key = keyOf(projectId, row.trace_id, spanId, which);
    if (known.has(key)) return known.get(key)!;
    const text = previewCut(storedPreview(projectId, row.trace_id, spanId, which), which);
    known.set(key, text);
    return text;
  };
  const write = (projectId: string, kind: 'conversation' | 'trace', id: string, turnCount: number, c: TurnContribution) =>
    upsert.run(
      projectId, kind, id, c.conversation_name, turnCount, c.span_count, c.error_count, c.input_tokens, c.output_tokens, c.cost_usd,
      c.first_ns, c.last_ns, c.agent_names, c.request_models, c.first_text, c.last_text,
    );
  return {
    refreshConversations(projectId, conversationIds) {
      for (const id of conversationIds) {
        const rows = turns.all(projectId, id) as TurnRow[];
        if (!rows.length) {
          remove.run(projectId, 'conversation', id);
          continue;
        }
        const { c, firstIn, lastOut } = aggregate(rows);
        c.first_text = preview(projectId, firstIn, 'input');
        c.last_text = preview(projectId, lastOut, 'output');
        write(projectId, 'conversation', id, rows.length, c);
      }
    },
    setTraceRow(projectId, traceId, c) {
      if (c) write(projectId, 'trace', traceId, 1, c);
      else remove.run(projectId, 'trace', traceId);
    },
    storedPreview,
    knownPreview(projectId, traceId, spanId, which, text) {
      known.set(keyOf(projectId, traceId, spanId, which), text);
    },
    forgetPreviews() {
      known.clear();
    },
  };
}

/** A conversation's row from its turns (sums, earliest/latest, unions) and the turns holding its previews. */
function aggregate(rows: TurnRow[]): { c: TurnContribution; firstIn: TurnRow | null; lastOut: TurnRow | null } {
  const c: TurnContribution = {
    span_count: 0, error_count: 0, input_tokens: 0, output_tokens: 0, cost_usd: null, first_ns: null, last_ns: null,
    conversation_name: null, agent_names: '[]', request_models: '[]', first_input_ns: null, first_span_id: null, first_text: null,
    last_output_ns: null, last_span_id: null, last_text: null,
  };
  let nameAt: bigint | null = null;
  const agents: string[] = [];
  const models: string[] = [];
  let firstIn: TurnRow | null = null;
  let lastOut: TurnRow | null = null;
  for (const r of rows) {
    c.span_count += Number(r.span_count);
    c.error_count += Number(r.error_count);
    c.input_tokens += Number(r.input_tokens);
    c.output_tokens += Number(r.output_tokens);
    if (r.cost_usd != null) c.cost_usd = (c.cost_usd ?? 0) + r.cost_usd;
    if (r.turn_start_ns != null && (c.first_ns == null || r.turn_start_ns < c.first_ns)) c.first_ns = r.turn_start_ns;
    if (r.last_ns != null && (c.last_ns == null || r.last_ns > c.last_ns)) c.last_ns = r.last_ns;
    if (r.conversation_name && (c.conversation_name == null || before(r.turn_start_ns, nameAt))) {
      c.conversation_name = r.conversation_name;
      nameAt = r.turn_start_ns;
    }
    agents.push(...(JSON.parse(r.agent_names) as string[]));
    models.push(...(JSON.parse(r.request_models) as string[]));
    if (r.first_input_ns != null && (!firstIn || r.first_input_ns < firstIn.first_input_ns! || (r.first_input_ns === firstIn.first_input_ns && r.trace_id < firstIn.trace_id))) firstIn = r;
    if (r.last_output_ns != null && (!lastOut || r.last_output_ns > lastOut.last_output_ns! || (r.last_output_ns === lastOut.last_output_ns && r.trace_id > lastOut.trace_id))) lastOut = r;
  }
  c.agent_names = distinctJson(agents);
  c.request_models = distinctJson(models);
  return { c, firstIn, lastOut };
}
