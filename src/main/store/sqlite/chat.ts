import type { Db } from './open.js';
import type { ChatSpan } from '../../domain/chat/span.js';
import type { SpanMessage, StatusCode } from '../../domain/span.js';
import type { ConversationTurnIds, TurnPage, TurnRef } from '../ports.js';
import { groupTurns, turnIdsOf } from '../turn-spans.js';
import { INHERITED_AGENT, INHERITED_CONVERSATION, wallMs } from '../../domain/accounting.js';
import { isoFromNs } from '../../domain/time.js';
import { HANDOFF_PREFIXES, handoffAttrs } from '../../domain/chat/transfer.js';
import { inputTailSuffices } from '../../domain/chat/walk.js';
import { bodyFields } from './bodies.js';
import type { BodyField } from './body-codec.js';
import { rowTitle } from '../../domain/conversation-row.js';

/**
 * The span's custom string map only when it may hold handoff attributes (domain/chat/transfer.ts): most
 * spans have none, and their maps are neither sent nor parsed.
 */
const HANDOFF_ATTRS = `CASE WHEN ${HANDOFF_PREFIXES.map((p) => `instr(s.custom_attrs_string, '"${p}') > 0`).join(' OR ')}
    THEN s.custom_attrs_string END AS handoff_attrs`;

/** The handoff keys of a stored map (JSON text, or null when the read left it out). */
function handoffOf(text: unknown): Record<string, string> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return handoffAttrs(JSON.parse(text) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/**
 * SQL of the chat views. Every statement is an indexed lookup: spans by (project_id, trace_id)
 * through the unique key, turns of a conversation through conversation_turns (migration 0002).
 * The SQL texts are exported so a test can pin their query plans (no full scan of spans).
 */
/** The span_details columns the walk reads: loaded per span, on first use, by traceSpansLazy. */
const HEAVY = ['system_instructions', 'tool_definitions', 'tool_call_arguments', 'tool_call_result', 'input_messages', 'output_messages'] as const;

export const SQL = {
  traceSpans: `SELECT ${spanColumns()} FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id`,
  // A turn: the trace's spans credited to the conversation (domain/accounting.ts; the column holds the credited id).
  conversationTraceSpans: `SELECT ${spanColumns()} FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id AND s.conversation_id = @conversation_id`,
  // Many turns at once (the evals reader): every span of the traces with the conversation it is credited
  // to, grouped and filtered by the caller (spans of a trace are few; the traces are many).
  spansOfTraces: `SELECT ${spanColumns()}, s.conversation_id AS credited_conversation_id FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id IN (SELECT value FROM json_each(@trace_ids))`,
  // The same for the turns' facts (evals): each span's stored body (decoded in JS, only the fields the walk
  // reads) with its base's row id — its input holds its own messages after its base's (migration 0021).
  spansOfTracesForFacts: `SELECT ${lightColumns()}, s.id AS rid, s.conversation_id AS credited_conversation_id, b.input_base, b.dict_id, b.body
    FROM spans s JOIN span_bodies b ON b.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id IN (SELECT value FROM json_each(@trace_ids))`,
  baseBody: `SELECT dict_id, body, input_base FROM span_bodies WHERE span_rowid = ?`,
  // The turns of many conversations, oldest first (the reverse of pageTurns' order).
  turnIdsOf: `SELECT conversation_id, trace_id FROM conversation_turns
    WHERE project_id = @project_id AND conversation_id IN (SELECT value FROM json_each(@conversation_ids))
    ORDER BY conversation_id, turn_start_ns ASC, trace_id ASC`,
  traceSpansLight: `SELECT ${lightColumns()}, s.id AS rid FROM spans s WHERE s.project_id = @project_id AND s.trace_id = @trace_id`,
  // Messages are stored as JSON.stringify output, so a user-role message contains '"role":"user"' and a
  // tool-call part '"type":"tool_call' (LIKE ignores ASCII case; a message that merely quotes these
  // words only costs a needless read). Only rows with either are returned.
  messageHints: `SELECT s.span_id, d.input_messages LIKE '%"role":"user"%' AS user_input,
      (d.input_messages LIKE '%"type":"tool_call%' OR d.output_messages LIKE '%"type":"tool_call%') AS tool_parts
    FROM spans s JOIN span_details d ON d.span_rowid = s.id
    WHERE s.project_id = @project_id AND s.trace_id = @trace_id
      AND (d.input_messages LIKE '%"role":"user"%' OR d.input_messages LIKE '%"type":"tool_call%' OR d.output_messages LIKE '%"type":"tool_call%')`,
  details: `SELECT ${HEAVY.map((c) => `d.${c}`).join(', ')} FROM span_details d WHERE d.span_rowid = ?`,
  countTurns: `SELECT COUNT(*) AS n FROM conversation_turns WHERE project_id = @project_id AND conversation_id = @conversation_id`,
  pageTurns: `SELECT trace_id FROM conversation_turns WHERE project_id = @project_id AND conversation_id = @conversation_id
    ORDER BY turn_start_ns DESC, trace_id DESC LIMIT @limit OFFSET @offset`,
  // Each turn's cost as the conversation view builds the turn (migration 0006): the same sum the conversations list shows.
  conversationCost: `SELECT SUM(cost_usd) AS cost FROM conversation_turns
    WHERE project_id = @project_id AND conversation_id = @conversation_id`,
  // The conversation's list row (issue 18): the chat header shows exactly what the list shows.
  // Wall time from the turn rows: the first turn's start to the latest end among the turns' spans.
  conversationTotals: `SELECT c.span_count, c.error_count, c.input_tokens, c.output_tokens, c.usage_spans, c.cost_usd, c.first_ns, c.last_ns,
      c.conversation_name, c.first_text, c.agent_names,
      (SELECT MAX(t.root_end_ns) FROM conversation_turns t WHERE t.project_id = c.project_id AND t.conversation_id = c.conversation_id) AS end_ns
    FROM conversation_summaries c WHERE c.project_id = @project_id AND c.conversation_id = @conversation_id AND c.kind = 'conversation'`,
} as const;

function lightColumns(): string {
  return spanColumns().split(',').map((c) => c.trim()).filter((c) => !c.startsWith('d.')).join(', ');
}

function spanColumns(): string {
  return `s.trace_id, s.span_id, s.parent_span_id, s.span_name, CAST(s.start_ns AS TEXT) AS start_ns, CAST(s.end_ns AS TEXT) AS end_ns,
    s.status_code, s.status_message, s.error_type, s.tool_call_id, s.operation_name, s.provider_name, s.agent_id,
    CASE WHEN s.counted & ${INHERITED_AGENT} THEN NULL ELSE s.agent_name END AS agent_name, s.agent_version,
    CASE WHEN s.counted & ${INHERITED_CONVERSATION} THEN NULL ELSE s.conversation_id END AS conversation_id, s.counted & 3 AS counted,
    s.request_model, s.response_model, s.tool_name, s.reasoning_content, s.compaction_summary, s.compaction_items_before,
    s.compaction_items_after, s.svc_user_id, s.input_tokens, s.output_tokens, s.reasoning_tokens,
    s.cache_creation_input_tokens, s.cache_read_input_tokens, s.input_cost_usd, s.output_cost_usd, s.total_cost_usd,
    s.content_refs, ${HANDOFF_ATTRS}, d.system_instructions, d.tool_definitions, d.tool_call_arguments, d.tool_call_result,
    d.input_messages, d.output_messages`;
}

type Row = Omit<ChatSpan, 'start_ns' | 'end_ns' | 'content_refs' | 'system_instructions' | 'input_messages' | 'output_messages' | 'status_code' | 'custom_attrs_string'> & {
  start_ns: string | null; end_ns: string | null; status_code: string; content_refs: string | null; handoff_attrs: string | null;
  system_instructions: string; input_messages: string; output_messages: string;
};

const jsonArray = <T>(text: string | null): T[] => {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

/** A stored row → the ChatSpan the walk reads (nanoseconds back to bigint, JSON columns parsed). */
function toSpan({ handoff_attrs, ...r }: Row): ChatSpan {
  return {
    ...r,
    custom_attrs_string: handoffOf(handoff_attrs),
    start_ns: r.start_ns == null ? null : BigInt(r.start_ns),
    end_ns: r.end_ns == null ? null : BigInt(r.end_ns),
    status_code: r.status_code as StatusCode,
    content_refs: jsonArray<string>(r.content_refs),
    system_instructions: jsonArray<string>(r.system_instructions).map(String),
    input_messages: jsonArray<SpanMessage>(r.input_messages),
    output_messages: jsonArray<SpanMessage>(r.output_messages),
  };
}

type HeavyRow = Pick<Row, (typeof HEAVY)[number]>;

const FACT_FIELDS: ReadonlySet<BodyField> = new Set(HEAVY);
/** Columns of the facts read that are not copied onto the span as they are. */
const FACT_OWN = new Set(['rid', 'credited_conversation_id', 'input_base', 'dict_id', 'body', 'handoff_attrs', 'start_ns', 'end_ns', 'content_refs']);

/** The facts read's raw rows (columns `names`, SQL.spansOfTracesForFacts) as spans, and the columns the caller reads. */
function factSpans(names: string[], fields: ReturnType<typeof bodyFields>) {
  const at = (n: string) => {
    const i = names.indexOf(n);
    if (i < 0) throw new Error(`the facts read has no column ${n}`);
    return i;
  };
  const col = { rid: at('rid'), base: at('input_base'), credited: at('credited_conversation_id'), dict: at('dict_id'), body: at('body'), handoff: at('handoff_attrs'), start: at('start_ns'), end: at('end_ns'), refs: at('content_refs') };
  const copied = names.map((n, i) => [n, i] as const).filter(([n]) => !FACT_OWN.has(n));
  /**
   * A raw row → a ChatSpan (every span the same shape; heavy fields decoded from its body in JS): its
   * input is its own messages (after its base's) until the caller extends it.
   */
  const spanOf = (row: unknown[]): ChatSpan => {
    const span: Record<string, unknown> = {};
    for (const [n, i] of copied) span[n] = row[i];
    const start = row[col.start] as string | null;
    const end = row[col.end] as string | null;
    span.start_ns = start == null ? null : BigInt(start);
    span.end_ns = end == null ? null : BigInt(end);
    const refs = row[col.refs] as string | null;
    span.content_refs = refs === '[]' || refs == null ? [] : jsonArray<string>(refs);
    span.custom_attrs_string = handoffOf(row[col.handoff]);
    const body = row[col.body];
    const h = Buffer.isBuffer(body) ? fields(row[col.dict] as number, body, FACT_FIELDS) : {};
    span.system_instructions = jsonArray<string>(h.system_instructions ?? null).map(String);
    span.tool_definitions = h.tool_definitions ?? null;
    span.tool_call_arguments = h.tool_call_arguments ?? null;
    span.tool_call_result = h.tool_call_result ?? null;
    span.input_messages = jsonArray<SpanMessage>(h.input_messages ?? null);
    span.output_messages = jsonArray<SpanMessage>(h.output_messages ?? null);
    return span as unknown as ChatSpan;
  };
  return { col, spanOf };
}
const INPUT: ReadonlySet<BodyField> = new Set(['input_messages']);

/**
 * A span of a light read: the light columns as own fields, the heavy ones (messages, tool arguments
 * and results, instructions) as getters that read the span's span_details row the first time one of
 * them is touched. A class with prototype getters keeps 20,000 of them as cheap as plain objects.
 */
class LazySpan {
  private heavy: Pick<ChatSpan, (typeof HEAVY)[number]> | null = null;
  constructor(private readonly rid: number, private readonly load: (rid: number) => HeavyRow | undefined) {}
  /** Whether the heavy fields were read (diagnostics; the paged chat's tests count them). */
  get heavyLoaded(): boolean {
    return this.heavy !== null;
  }
  private h(): Pick<ChatSpan, (typeof HEAVY)[number]> {
    if (this.heavy) return this.heavy;
    const d = this.load(this.rid);
    this.heavy = {
      system_instructions: jsonArray<string>(d?.system_instructions ?? null).map(String),
      tool_definitions: d?.tool_definitions ?? null,
      tool_call_arguments: d?.tool_call_arguments ?? null,
      tool_call_result: d?.tool_call_result ?? null,
      input_messages: jsonArray<SpanMessage>(d?.input_messages ?? null),
      output_messages: jsonArray<SpanMessage>(d?.output_messages ?? null),
    };
    return this.heavy;
  }
  get system_instructions() { return this.h().system_instructions; }
  get tool_definitions() { return this.h().tool_definitions; }
  get tool_call_arguments() { return this.h().tool_call_arguments; }
  get tool_call_result() { return this.h().tool_call_result; }
  get input_messages() { return this.h().input_messages; }
  get output_messages() { return this.h().output_messages; }
}

/**
 * Raw rows (arrays: better-sqlite3 builds them ~3× faster than 35-key objects) → LazySpans. Every
 * span gets its fields in the same order, so they share one shape.
 */
function toLazySpans(names: string[], rows: unknown[][], load: (rid: number) => HeavyRow | undefined): ChatSpan[] {
  const rid = names.indexOf('rid');
  const handoff = names.indexOf('handoff_attrs');
  const out: ChatSpan[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const span = new LazySpan(row[rid] as number, load) as unknown as Record<string, unknown>;
    for (let i = 0; i < names.length; i++) if (i !== rid && i !== handoff) span[names[i]!] = row[i];
    span.start_ns = span.start_ns == null ? null : BigInt(span.start_ns as string);
    span.end_ns = span.end_ns == null ? null : BigInt(span.end_ns as string);
    span.content_refs = span.content_refs === '[]' || span.content_refs == null ? [] : jsonArray<string>(span.content_refs as string);
    span.custom_attrs_string = handoffOf(row[handoff]);
    out[r] = span as unknown as ChatSpan;
  }
  return out;
}

interface TotalsRow {
  span_count: bigint; error_count: bigint; input_tokens: bigint; output_tokens: bigint; usage_spans: bigint;
  cost_usd: number | null; first_ns: bigint | null; last_ns: bigint | null; end_ns: bigint | null;
  conversation_name: string | null; first_text: string | null; agent_names: string;
}

/** A conversation's totals from its list row: wall time from its first span's start to its last span's end. */
const totalsOf = (t: TotalsRow): NonNullable<TurnPage['totals']> => ({
  span_count: Number(t.span_count),
  error_count: Number(t.error_count),
  total_input_tokens: Number(t.input_tokens),
  total_output_tokens: Number(t.output_tokens),
  usage_known: t.usage_spans > 0n,
  total_cost_usd: t.cost_usd,
  first_activity: t.first_ns == null ? null : isoFromNs(t.first_ns),
  last_activity: t.last_ns == null ? null : isoFromNs(t.last_ns),
  duration_ms: wallMs(t.first_ns, t.end_ns),
});

export interface ChatRepo {
  /**
   * All spans of a trace with only the light columns read; each span's heavy fields are read when
   * first touched (the paged trace chat walks only the spans its page needs).
   */
  traceSpansLazy(projectId: string, traceId: string): ChatSpan[];
  /**
   * What the bounded chat walk may skip: whether any span has a user-role input message (else no user
   * message can appear in the chat), and which spans' messages can hold tool-call parts.
   */
  traceMessageHints(projectId: string, traceId: string): { userInput: boolean; toolPartSpans: Set<string> };
  /** All spans of a trace (light + heavy fields the walk needs). */
  traceSpans(projectId: string, traceId: string): ChatSpan[];
  /** A page of a conversation's turns (newest first), its turn count and total cost. */
  conversationTurns(q: { project_id: string; conversation_id: string; limit: number; offset: number }): TurnPage;
  /** For each trace id, its spans that belong to the conversation's turn: untagged or tagged with it (§4.1). */
  conversationTurnSpans(projectId: string, conversationId: string, traceIds: readonly string[]): ChatSpan[][];
  /** TraceStore.conversationsTurnIds: each conversation's turn ids, oldest first. */
  conversationsTurnIds(projectId: string, conversationIds: readonly string[]): ConversationTurnIds[];
  /** TraceStore.turnsSpans: the spans of many turns (or whole traces) in one read. */
  turnsSpans(projectId: string, turns: readonly TurnRef[]): ChatSpan[][];
  /**
   * turnsSpans for the turns' facts (TraceStore.turnsFacts): each input only as far back as the walk
   * reads it (inputTailSuffices): a call's own messages after its base's, extended base by base until
   * the question is in — not the conversation's whole history, which is most of the bytes and was
   * read, copied and parsed again for every call.
   */
  turnsSpansForFacts(projectId: string, turns: readonly TurnRef[]): ChatSpan[][];
}

export function createChatRepo(db: Db): ChatRepo {
  const traceSpans = db.prepare<{ project_id: string; trace_id: string }, Row>(SQL.traceSpans);
  const convSpans = db.prepare<{ project_id: string; trace_id: string; conversation_id: string }, Row>(SQL.conversationTraceSpans);
  const countTurns = db.prepare<{ project_id: string; conversation_id: string }, { n: number }>(SQL.countTurns);
  const pageTurns = db.prepare<{ project_id: string; conversation_id: string; limit: number; offset: number }, { trace_id: string }>(SQL.pageTurns);
  const conversationCost = db.prepare<{ project_id: string; conversation_id: string }, { cost: number | null }>(SQL.conversationCost);
  const conversationTotals = db.prepare<{ project_id: string; conversation_id: string }, TotalsRow>(SQL.conversationTotals).safeIntegers(true);
  const light = db.prepare<{ project_id: string; trace_id: string }, unknown[]>(SQL.traceSpansLight).raw(true);
  const lightNames = light.columns().map((c) => c.name);
  const details = db.prepare<[number], HeavyRow>(SQL.details);
  const manySpans = db.prepare<{ project_id: string; trace_ids: string }, Row & { credited_conversation_id: string | null }>(SQL.spansOfTraces);
  const factRows = db.prepare<{ project_id: string; trace_ids: string }, unknown[]>(SQL.spansOfTracesForFacts).raw(true);
  const baseBody = db.prepare<[number], { dict_id: number; body: Buffer | null; input_base: number | null }>(SQL.baseBody);
  const fields = bodyFields(db);
  const facts = factSpans(factRows.columns().map((c) => c.name), fields);
  const turnIds = db.prepare<{ project_id: string; conversation_ids: string }, { conversation_id: string; trace_id: string }>(SQL.turnIdsOf);
  const hints = db.prepare<{ project_id: string; trace_id: string }, { span_id: string; user_input: number; tool_parts: number }>(SQL.messageHints);
  return {
    traceMessageHints: (project_id, trace_id) => {
      const rows = hints.all({ project_id, trace_id });
      return { userInput: rows.some((r) => r.user_input === 1), toolPartSpans: new Set(rows.filter((r) => r.tool_parts === 1).map((r) => r.span_id)) };
    },
    traceSpansLazy: (project_id, trace_id) => toLazySpans(lightNames, light.all({ project_id, trace_id }), (rid) => details.get(rid)),
    traceSpans: (project_id, trace_id) => traceSpans.all({ project_id, trace_id }).map(toSpan),
    conversationTurns: ({ project_id, conversation_id, limit, offset }) => {
      const total = countTurns.get({ project_id, conversation_id })?.n ?? 0;
      const ids = limit > 0 && offset < total ? pageTurns.all({ project_id, conversation_id, limit, offset }).map((r) => r.trace_id) : [];
      const t = conversationTotals.get({ project_id, conversation_id });
      return {
        trace_ids: ids, total_turns: total, total_cost_usd: conversationCost.get({ project_id, conversation_id })?.cost ?? null, totals: t ? totalsOf(t) : null,
        title: t ? rowTitle({ kind: 'conversation', conversation_id, conversation_name: t.conversation_name, first_text: t.first_text, agent_names: JSON.parse(t.agent_names) as string[] }) : null,
      };
    },
    conversationTurnSpans: (project_id, conversation_id, traceIds) =>
      traceIds.map((trace_id) => convSpans.all({ project_id, trace_id, conversation_id }).map(toSpan)),
    conversationsTurnIds: (project_id, conversationIds) =>
      conversationIds.length ? turnIdsOf(conversationIds, turnIds.all({ project_id, conversation_ids: JSON.stringify(conversationIds) })) : [],
    turnsSpans: (project_id, turns) => {
      if (!turns.length) return [];
      const rows = manySpans.all({ project_id, trace_ids: JSON.stringify([...new Set(turns.map((t) => t.trace_id))]) });
      return groupTurns(turns, rows, ({ credited_conversation_id: c, ...r }) => ({ trace_id: r.trace_id, conversation_id: c, span: toSpan(r) }));
    },
    turnsSpansForFacts: (project_id, turns) => {
      if (!turns.length) return [];
      const rows = factRows.all({ project_id, trace_ids: JSON.stringify([...new Set(turns.map((t) => t.trace_id))]) });
      // Own input messages by row id, parsed once: bases are mostly spans of this read (the turn's earlier
      // call, the previous turn's last), else read one by one.
      const own = new Map<number, { messages: SpanMessage[]; base: number | null }>();
      const ownOf = (rid: number) => {
        let o = own.get(rid);
        if (!o) {
          const b = baseBody.get(rid);
          const text = b && Buffer.isBuffer(b.body) ? fields(b.dict_id, b.body, INPUT).input_messages : null;
          own.set(rid, (o = { messages: jsonArray<SpanMessage>(text ?? null), base: b?.input_base ?? null }));
        }
        return o;
      };
      const spans = rows.map((row) => {
        const span = facts.spanOf(row);
        own.set(row[facts.col.rid] as number, { messages: span.input_messages, base: row[facts.col.base] as number | null });
        return { row, span };
      });
      return groupTurns(turns, spans, ({ row, span }) => {
        let messages = span.input_messages;
        for (let base = row[facts.col.base] as number | null; base != null && !inputTailSuffices(messages); ) {
          const b = ownOf(base);
          messages = b.messages.concat(messages);
          base = b.base;
        }
        span.input_messages = messages;
        return { trace_id: span.trace_id, conversation_id: row[facts.col.credited] as string | null, span };
      });
    },
  };
}
