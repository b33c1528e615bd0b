/**
 * Which conversation and which agent a span is credited to (issue 18 item 1, docs/ingest.md
 * "Accounting", decision 0022). Real emitters put the conversation id and the agent name on only
 * some spans (the agent's root, the model calls, not the tools): every total Loupe shows — the
 * conversations list, the chat and turn headers, Agents and its spans, group-by `conversation_id` and
 * `agent_name` — sums the spans CREDITED to the conversation or agent by these rules, stored per span
 * at ingest by both store adapters (the analytic `agent_name` / `conversation_id` columns hold the
 * credited values; two bits of `counted` say which were inherited, so the span's own stays known):
 *
 * - agent: the span's own agent name, else that of its nearest ancestor that has one; none when no
 *   ancestor has one.
 * - conversation: the span's own conversation id, else its nearest ancestor's, else the trace's — the
 *   id of the trace's earliest-starting span that carries one (a trace belongs to the conversation of
 *   any span in it; with several, each untagged span counts for one of them, never two).
 *
 * A span whose parent has not arrived yet (another batch, another file) is credited from what is
 * there; the trace pass recomputes the trace when its other spans arrive, so the stored values do not
 * depend on arrival order. Pure functions over the light fields, so both adapters and the tests share them.
 */

/** Bits of `spans.counted` beside the counting rule's (1 tokens, 2 cost) and the message bits (4, 8). */
export const INHERITED_AGENT = 16;
export const INHERITED_CONVERSATION = 32;
export const CREDIT_BITS = INHERITED_AGENT | INHERITED_CONVERSATION;

export interface CreditSpan {
  span_id: string;
  parent_span_id: string | null;
  start_ns: bigint | null;
  /** The span's OWN values (what its attributes say). */
  agent_name: string | null;
  conversation_id: string | null;
}

export interface Credit {
  agent: string | null;
  conversation: string | null;
  /** INHERITED_AGENT | INHERITED_CONVERSATION when the value came from another span. */
  bits: number;
}

const earlier = (a: CreditSpan, b: CreditSpan): boolean => {
  if (a.start_ns !== b.start_ns) {
    if (a.start_ns == null) return false;
    if (b.start_ns == null) return true;
    return a.start_ns < b.start_ns;
  }
  return a.span_id < b.span_id;
};

/** The credit of every span of one trace (all its spans as stored now), by span id. */
export function creditSpans(spans: readonly CreditSpan[]): Map<string, Credit> {
  const byId = new Map<string, CreditSpan>();
  for (const s of spans) byId.set(s.span_id, s);
  let first: CreditSpan | null = null;
  for (const s of spans) if (s.conversation_id != null && (!first || earlier(s, first))) first = s;
  const traceConversation = first?.conversation_id ?? null;
  const out = new Map<string, Credit>();
  // Memoized walk up the parent links; a cycle or a missing parent ends it (depth bounded as the chat walk's).
  const agentOf = new Map<string, string | null>();
  const convOf = new Map<string, string | null>();
  const resolve = (s: CreditSpan, own: (x: CreditSpan) => string | null, memo: Map<string, string | null>): string | null => {
    const path: CreditSpan[] = [];
    let cur: CreditSpan | undefined = s;
    let found: string | null = null;
    const seen = new Set<string>();
    while (cur && !seen.has(cur.span_id) && path.length < 10_000) {
      const known = memo.get(cur.span_id);
      if (known !== undefined) {
        found = known;
        break;
      }
      const v = own(cur);
      if (v != null) {
        found = v;
        break;
      }
      seen.add(cur.span_id);
      path.push(cur);
      cur = cur.parent_span_id && cur.parent_span_id !== cur.span_id ? byId.get(cur.parent_span_id) : undefined;
    }
    for (const p of path) memo.set(p.span_id, found);
    return found;
  };
  const ownAgent = (x: CreditSpan) => x.agent_name || null;
  const ownConversation = (x: CreditSpan) => x.conversation_id;
  for (const s of spans) {
    const agent = ownAgent(s) ?? resolve(s, ownAgent, agentOf);
    const conversation = s.conversation_id ?? resolve(s, ownConversation, convOf) ?? traceConversation;
    out.set(s.span_id, {
      agent,
      conversation,
      bits: (agent != null && ownAgent(s) == null ? INHERITED_AGENT : 0) | (conversation != null && s.conversation_id == null ? INHERITED_CONVERSATION : 0),
    });
  }
  return out;
}

/** The span's own agent name and conversation id back from the stored (credited) values and bits. */
export function ownValues<S extends { agent_name: string | null; conversation_id: string | null; counted: number }>(s: S): { agent_name: string | null; conversation_id: string | null } {
  return {
    agent_name: s.counted & INHERITED_AGENT ? null : s.agent_name,
    conversation_id: s.counted & INHERITED_CONVERSATION ? null : s.conversation_id,
  };
}

/**
 * Wall time of a set of spans: the earliest start and the latest end among the spans that ended (an
 * open span has no end yet; none ended → no end, no duration), duration in whole ms.
 */
export function wallTime(spans: Iterable<{ start_ns: bigint | null; end_ns: bigint | null }>): { start_ns: bigint | null; end_ns: bigint | null; duration_ms: number | null } {
  let start: bigint | null = null;
  let end: bigint | null = null;
  for (const s of spans) {
    if (s.start_ns != null && (start == null || s.start_ns < start)) start = s.start_ns;
    if (s.end_ns != null && (end == null || s.end_ns > end)) end = s.end_ns;
  }
  return { start_ns: start, end_ns: end, duration_ms: wallMs(start, end) };
}

/** Whole milliseconds from `start` to `end`, floored at 0; null when either is unknown. */
export function wallMs(start: bigint | null, end: bigint | null): number | null {
  if (start == null || end == null) return null;
  const d = (end - start) / 1_000_000n;
  return d < 0n ? 0 : Number(d);
}
