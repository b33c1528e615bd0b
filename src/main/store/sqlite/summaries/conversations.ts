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
 * span carries a conversation id gets a row of kind 'trace' computed from the trace itself. The rules
 * (a turn's contribution, the re-aggregation, the previews) are both adapters' (domain/summaries/turns.ts).
 */
import type { Db } from '../open.js';
import { previewCut, previewOf } from '../../../domain/previews.js';
import { aggregateTurns, type TurnContribution } from '../../../domain/summaries/turns.js';
import { NO_THREAD, threadColumns, type ThreadColumns } from './threads.js';

export const CONVERSATION_SUMMARY_SQL = {
  turns: `SELECT trace_id, turn_start_ns, root_end_ns, duration_ms, span_count, error_count, input_tokens, output_tokens, usage_spans, cost_usd, last_ns,
    conversation_name, agent_names, request_models, first_input_ns, first_span_id, last_output_ns, last_span_id
    FROM conversation_turns WHERE project_id = ? AND conversation_id = ?`,
  // A preview candidate's messages (the stored span's body), when the batch did not carry its text.
  spanMessages: `SELECT CASE WHEN ? = 'input' THEN d.input_messages ELSE d.output_messages END
    FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.project_id = ? AND s.trace_id = ? AND s.span_id = ?`,
  upsert: `INSERT INTO conversation_summaries (project_id, kind, conversation_id, conversation_name, turn_count, span_count,
    error_count, input_tokens, output_tokens, cost_usd, first_ns, last_ns, agent_names, request_models, first_text, last_text,
    turn_end_ns, first_turn_id, last_turn_id, p50_turn_ms, p99_turn_ms, usage_spans)
    VALUES (${Array(22).fill('?').join(', ')})
    ON CONFLICT (project_id, conversation_id, kind) DO UPDATE SET conversation_name = excluded.conversation_name,
    turn_count = excluded.turn_count, span_count = excluded.span_count, error_count = excluded.error_count,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd,
    first_ns = excluded.first_ns, last_ns = excluded.last_ns, agent_names = excluded.agent_names,
    request_models = excluded.request_models, first_text = excluded.first_text, last_text = excluded.last_text,
    turn_end_ns = excluded.turn_end_ns, first_turn_id = excluded.first_turn_id, last_turn_id = excluded.last_turn_id,
    p50_turn_ms = excluded.p50_turn_ms, p99_turn_ms = excluded.p99_turn_ms, usage_spans = excluded.usage_spans`,
  remove: `DELETE FROM conversation_summaries WHERE project_id = ? AND kind = ? AND conversation_id = ?`,
} as const;

interface TurnRow {
  trace_id: string;
  turn_start_ns: bigint | null;
  root_end_ns: bigint | null;
  duration_ms: bigint | null;
  span_count: bigint;
  error_count: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  usage_spans: bigint;
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
  const write = (projectId: string, kind: 'conversation' | 'trace', id: string, turnCount: number, c: TurnContribution, thread: ThreadColumns) =>
    upsert.run(
      projectId, kind, id, c.conversation_name, turnCount, c.span_count, c.error_count, c.input_tokens, c.output_tokens, c.cost_usd,
      c.first_ns, c.last_ns, c.agent_names, c.request_models, c.first_text, c.last_text, ...thread, c.usage_spans,
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
        write(projectId, 'conversation', id, rows.length, c, threadColumns(id, rows));
      }
    },
    setTraceRow(projectId, traceId, c) {
      if (c) write(projectId, 'trace', traceId, 1, c, NO_THREAD);
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

/** A conversation's row from its turn rows (domain/summaries/turns.ts) and the turns holding its previews. */
function aggregate(rows: TurnRow[]): { c: TurnContribution; firstIn: TurnRow | null; lastOut: TurnRow | null } {
  const parsed = rows.map((r) => ({
    ...r, span_count: Number(r.span_count), error_count: Number(r.error_count), input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans), agent_names: JSON.parse(r.agent_names) as string[], request_models: JSON.parse(r.request_models) as string[], row: r,
  }));
  const { totals: t, firstIn, lastOut } = aggregateTurns(parsed);
  const c: TurnContribution = {
    span_count: t.span_count, error_count: t.error_count, input_tokens: t.input_tokens, output_tokens: t.output_tokens, usage_spans: t.usage_spans,
    cost_usd: t.cost_usd, first_ns: t.first_ns, last_ns: t.last_ns, conversation_name: t.conversation_name, agent_names: JSON.stringify(t.agent_names),
    request_models: JSON.stringify(t.request_models), first_input_ns: null, first_span_id: null, first_text: null, last_output_ns: null,
    last_span_id: null, last_text: null,
  };
  return { c, firstIn: firstIn?.row ?? null, lastOut: lastOut?.row ?? null };
}
