/**
 * What a trace contributes to the conversations list, for every adapter (the SQLite adapter stores
 * it per turn in conversation_turns, ClickHouse the same): which conversations a trace has turns in
 * (and when each turn starts), a turn's contribution (span and error counts, tokens and cost by the
 * one counting rule through the turn header, last activity, name, agents, models, the two preview
 * candidates), and a conversation's row re-aggregated from its turns. Pure functions so both stores
 * answer the same rows and the rules are testable without a database.
 */
import type { TurnHeader } from '../chat/header.js';
import { previewCut } from '../previews.js';

/** Bits of the stored counting bits beyond the counting rule's (COUNTS_USAGE 1, COUNTS_COST 2). */
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
  /** Spans whose tokens counted (0: the usage is unknown, not zero; issue 18). */
  usage_spans: number;
  cost_usd: number | null;
  first_ns: bigint | null;
  last_ns: bigint | null;
  conversation_name: string | null;
  /** Sorted distinct names, as JSON text. */
  agent_names: string;
  /** Sorted distinct names, as JSON text. */
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
const minNs = (a: bigint | null, b: bigint | null) => (a == null ? b : b == null ? a : a < b ? a : b);

/**
 * The conversations a trace's spans are credited to (the stored conversation_id, domain/accounting.ts),
 * each with the earliest start of its spans (the turn's start), in the order first met; the caller sorts the ids.
 */
export function conversationStarts(spans: Iterable<{ conversation_id: string | null; start_ns: bigint | null }>): Map<string, bigint | null> {
  const starts = new Map<string, bigint | null>();
  for (const s of spans) {
    if (s.conversation_id == null) continue;
    const prev = starts.has(s.conversation_id) ? starts.get(s.conversation_id)! : undefined;
    starts.set(s.conversation_id, prev === undefined ? s.start_ns : minNs(prev, s.start_ns));
  }
  return starts;
}

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
    usage_spans: h.usage_spans,
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

/** A stored turn row as the conversation's re-aggregation reads it. */
export interface StoredTurn {
  trace_id: string;
  turn_start_ns: bigint | null;
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  usage_spans: number;
  cost_usd: number | null;
  last_ns: bigint | null;
  conversation_name: string | null;
  agent_names: readonly string[];
  request_models: readonly string[];
  first_input_ns: bigint | null;
  last_output_ns: bigint | null;
}

/** A conversation's totals re-aggregated from its turns. */
export interface ConversationTotals {
  turn_count: number;
  span_count: number;
  error_count: number;
  input_tokens: number;
  output_tokens: number;
  usage_spans: number;
  cost_usd: number | null;
  first_ns: bigint | null;
  last_ns: bigint | null;
  conversation_name: string | null;
  /** Sorted distinct. */
  agent_names: string[];
  request_models: string[];
}

/**
 * A conversation's row from its turns: sums, the earliest turn start, the latest activity, unions of
 * agents and models, the name of the earliest named turn (ties: the first met), and the turns holding
 * the earliest input and the latest output (ties by trace id), whose previews are the row's.
 */
export function aggregateTurns<T extends StoredTurn>(rows: readonly T[]): { totals: ConversationTotals; firstIn: T | null; lastOut: T | null } {
  const c: ConversationTotals = {
    turn_count: rows.length, span_count: 0, error_count: 0, input_tokens: 0, output_tokens: 0, usage_spans: 0, cost_usd: null, first_ns: null, last_ns: null,
    conversation_name: null, agent_names: [], request_models: [],
  };
  let nameAt: bigint | null = null;
  const agents = new Set<string>();
  const models = new Set<string>();
  let firstIn: T | null = null;
  let lastOut: T | null = null;
  for (const r of rows) {
    c.span_count += r.span_count;
    c.error_count += r.error_count;
    c.input_tokens += r.input_tokens;
    c.output_tokens += r.output_tokens;
    c.usage_spans += r.usage_spans;
    if (r.cost_usd != null) c.cost_usd = (c.cost_usd ?? 0) + r.cost_usd;
    if (r.turn_start_ns != null && (c.first_ns == null || r.turn_start_ns < c.first_ns)) c.first_ns = r.turn_start_ns;
    if (r.last_ns != null && (c.last_ns == null || r.last_ns > c.last_ns)) c.last_ns = r.last_ns;
    if (r.conversation_name && (c.conversation_name == null || before(r.turn_start_ns, nameAt))) {
      c.conversation_name = r.conversation_name;
      nameAt = r.turn_start_ns;
    }
    r.agent_names.forEach((a) => agents.add(a));
    r.request_models.forEach((m) => models.add(m));
    if (r.first_input_ns != null && (!firstIn || r.first_input_ns < firstIn.first_input_ns! || (r.first_input_ns === firstIn.first_input_ns && r.trace_id < firstIn.trace_id))) firstIn = r;
    if (r.last_output_ns != null && (!lastOut || r.last_output_ns > lastOut.last_output_ns! || (r.last_output_ns === lastOut.last_output_ns && r.trace_id > lastOut.trace_id))) lastOut = r;
  }
  c.agent_names = [...agents].sort();
  c.request_models = [...models].sort();
  return { totals: c, firstIn, lastOut };
}
