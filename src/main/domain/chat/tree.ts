/**
 * The span tree of one trace (§4.3): spans linked by parent id, a span whose parent is absent is a
 * root, children and roots in `compareSpans` order. Also the usage-bearing-leaf rule (§3): totals sum
 * only spans that carry usage and have no descendant carrying usage, because agent and workflow
 * spans often repeat their children's tokens.
 */
import { carriesUsage } from '../span.js';
import { compareSpans, type HeaderSpan } from './span.js';

type TreeSpan = Pick<HeaderSpan, 'span_id' | 'parent_span_id' | 'start_ns' | 'end_ns'>;

export interface SpanTree<S extends TreeSpan> {
  roots: S[];
  children: Map<string, S[]>;
}

export function buildTree<S extends TreeSpan>(spans: readonly S[]): SpanTree<S> {
  const byId = new Map<string, S>();
  for (const s of spans) byId.set(s.span_id, s);
  const children = new Map<string, S[]>();
  const roots: S[] = [];
  for (const s of spans) {
    const p = s.parent_span_id;
    if (p && p !== s.span_id && byId.has(p)) {
      const list = children.get(p);
      if (list) list.push(s);
      else children.set(p, [s]);
    } else roots.push(s);
  }
  for (const list of children.values()) list.sort(compareSpans);
  roots.sort(compareSpans);
  // A parent cycle leaves spans unreachable from any root; promote the first of each to a root so
  // that no span silently disappears from the view.
  const seen = new Set<string>();
  const mark = (s: S) => {
    const stack = [s];
    while (stack.length) {
      const x = stack.pop()!;
      if (seen.has(x.span_id)) continue;
      seen.add(x.span_id);
      for (const c of children.get(x.span_id) ?? []) stack.push(c);
    }
  };
  roots.forEach(mark);
  if (seen.size < byId.size) {
    for (const s of [...spans].sort(compareSpans)) {
      if (seen.has(s.span_id)) continue;
      const p = s.parent_span_id!;
      children.set(p, (children.get(p) ?? []).filter((c) => c.span_id !== s.span_id));
      roots.push(s);
      mark(s);
    }
    roots.sort(compareSpans);
  }
  return { roots, children };
}

/** All spans of a subtree (root included), iteratively so deep trees cannot overflow the stack. */
export function subtree<S extends TreeSpan>(tree: SpanTree<S>, root: S): S[] {
  const out: S[] = [];
  const stack = [root];
  while (stack.length) {
    const s = stack.pop()!;
    out.push(s);
    for (const c of tree.children.get(s.span_id) ?? []) stack.push(c);
  }
  return out;
}

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Sum of costs of cost-bearing leaves; null when no span in the set has a cost. */
  cost_usd: number | null;
  /** How many spans' tokens were counted: 0 means the set's usage is unknown (shown "–", never 0). */
  usage_spans: number;
  input_cost_usd: number | null;
  output_cost_usd: number | null;
}

type UsageSpan = TreeSpan & Pick<HeaderSpan, 'input_tokens' | 'output_tokens' | 'reasoning_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'total_cost_usd'> & {
  input_cost_usd?: number | null;
  output_cost_usd?: number | null;
};

/** Bits of `countedSpans`: the span's tokens count toward totals / its cost does. */
export const COUNTS_USAGE = 1;
export const COUNTS_COST = 2;

type LeafSpan = TreeSpan & Pick<HeaderSpan, 'input_tokens' | 'output_tokens' | 'total_cost_usd'>;

/**
 * THE rule deciding which spans' tokens and costs count (semantics §3, the usage-bearing leaf): a
 * span's tokens count when it carries usage and no descendant in `set` does; its cost counts when it
 * carries a cost and no descendant in `set` does. Every total Loupe shows — turn and chat headers,
 * conversation and agent summaries, the conversations list, group-by token/cost totals and the
 * derived `total_tokens` / `total_cost_usd` measures (through the `counted` column stored at
 * ingest) — is a sum over the spans this marks, so one selection shows one total in every view.
 * Cost has its own leaf test: a mirrored agent span priced from its mirrored tokens would otherwise
 * double the turn's cost (docs/chat.md). Returns span_id → COUNTS_USAGE | COUNTS_COST bits (0 omitted).
 */
export function countedSpans<S extends LeafSpan>(set: readonly S[], tree: SpanTree<S> = buildTree(set)): Map<string, number> {
  const out = new Map<string, number>();
  const inSet = new Set(set.map((s) => s.span_id));
  const usageBelow = new Map<string, boolean>();
  const costBelow = new Map<string, boolean>();
  // Post-order over the tree restricted to `set`.
  const visit = (root: S) => {
    const order: S[] = [];
    const stack = [root];
    while (stack.length) {
      const s = stack.pop()!;
      order.push(s);
      for (const c of tree.children.get(s.span_id) ?? []) if (inSet.has(c.span_id)) stack.push(c);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const s = order[i]!;
      let u = false;
      let c = false;
      for (const k of tree.children.get(s.span_id) ?? []) {
        if (!inSet.has(k.span_id)) continue;
        u ||= carriesUsage(k) || usageBelow.get(k.span_id) === true;
        c ||= k.total_cost_usd != null || costBelow.get(k.span_id) === true;
      }
      usageBelow.set(s.span_id, u);
      costBelow.set(s.span_id, c);
      const bits = (carriesUsage(s) && !u ? COUNTS_USAGE : 0) | (s.total_cost_usd != null && !c ? COUNTS_COST : 0);
      if (bits) out.set(s.span_id, bits);
    }
  };
  const tops = set.filter((s) => !s.parent_span_id || !inSet.has(s.parent_span_id) || !(tree.children.get(s.parent_span_id) ?? []).some((c) => c.span_id === s.span_id));
  for (const r of tops) visit(r);
  return out;
}

/**
 * The counting bits of `set`: the stored ones (`counted`, decided over the WHOLE trace at ingest) when
 * every span carries them — a conversation's turn is part of a trace, and its spans count exactly as
 * they count in the trace, so the turns of a trace add up to the trace — else computed over `set`.
 */
export function countingBits<S extends LeafSpan & { counted?: number }>(set: readonly S[], tree: SpanTree<S> = buildTree(set)): Map<string, number> {
  if (set.length && set.every((s) => typeof s.counted === 'number')) {
    const out = new Map<string, number>();
    for (const s of set) {
      const bits = s.counted! & (COUNTS_USAGE | COUNTS_COST);
      if (bits) out.set(s.span_id, bits);
    }
    return out;
  }
  return countedSpans(set, tree);
}

/** Usage totals of `set` (a whole trace, one turn or one subtree): sums over the spans the counting rule marks. */
export function usageTotals<S extends UsageSpan & { counted?: number }>(set: readonly S[], tree: SpanTree<S> = buildTree(set)): UsageTotals {
  const t: UsageTotals = {
    input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0,
    cost_usd: null, input_cost_usd: null, output_cost_usd: null, usage_spans: 0,
  };
  const counted = countingBits(set, tree);
  for (const s of set) {
    const bits = counted.get(s.span_id);
    if (!bits) continue;
    if (bits & COUNTS_USAGE) {
      t.usage_spans++;
      t.input_tokens += s.input_tokens ?? 0;
      t.output_tokens += s.output_tokens ?? 0;
      t.reasoning_tokens += s.reasoning_tokens ?? 0;
      t.cache_creation_input_tokens += s.cache_creation_input_tokens ?? 0;
      t.cache_read_input_tokens += s.cache_read_input_tokens ?? 0;
    }
    if (bits & COUNTS_COST) {
      t.cost_usd = (t.cost_usd ?? 0) + s.total_cost_usd!;
      if (s.input_cost_usd != null) t.input_cost_usd = (t.input_cost_usd ?? 0) + s.input_cost_usd;
      if (s.output_cost_usd != null) t.output_cost_usd = (t.output_cost_usd ?? 0) + s.output_cost_usd;
    }
  }
  return t;
}
