/**
 * Pure functions behind the waterfall (kept free of React so they are cheap and testable, as in
 * Jaeger's timeline): parse times, build the span tree in the chat walk's order, flatten it with
 * collapsed subtrees hidden, and map times to fractions of the visible window.
 */

export interface TimelineSpan {
  span_id: string;
  parent_span_id: string | null;
  span_name: string | null;
  operation_name: string | null;
  agent_name: string | null;
  tool_name: string | null;
  request_model: string | null;
  status_code: string;
  /** Microseconds since the epoch (traces.timeline sends them relative to the trace start; the page adds it back). */
  start_us: number | null;
  end_us: number | null;
  /** Shown in the row tooltip; optional so callers without them can still build a tree. */
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_cost_usd?: number | null;
  service_name?: string | null;
}

export interface Node {
  span: TimelineSpan;
  /** Microseconds since the epoch (doubles hold µs exactly until year 2255). */
  start: number;
  end: number;
  depth: number;
  children: Node[];
  /** Number of descendants, shown on collapsed rows. */
  size: number;
}

export interface Tree {
  roots: Node[];
  byId: Map<string, Node>;
  min: number;
  max: number;
  count: number;
}

/** The columnar answer of traces.timeline (one array per field, times in µs after `origin_us`). */
export interface TimelineColumns {
  count: number;
  origin_us: number | null;
  columns: {
    span_id: string[]; parent_span_id: (string | null)[]; span_name: string[]; operation_name: (string | null)[];
    agent_name: (string | null)[]; tool_name: (string | null)[]; request_model: (string | null)[]; status_code: string[];
    start_us: (number | null)[]; end_us: (number | null)[]; input_tokens: (number | null)[]; output_tokens: (number | null)[];
    total_cost_usd: (number | null)[]; service_name?: (string | null)[];
  };
}

/** Columns → one object per span, times made absolute again (20,000 spans: a few ms). */
export function spansFromColumns(t: TimelineColumns): TimelineSpan[] {
  const c = t.columns;
  const o = t.origin_us ?? 0;
  const out: TimelineSpan[] = new Array(t.count);
  for (let i = 0; i < t.count; i++) {
    const start = c.start_us[i];
    const end = c.end_us[i];
    out[i] = {
      span_id: c.span_id[i]!, parent_span_id: c.parent_span_id[i] ?? null, span_name: c.span_name[i] ?? null,
      operation_name: c.operation_name[i] ?? null, agent_name: c.agent_name[i] ?? null, tool_name: c.tool_name[i] ?? null,
      request_model: c.request_model[i] ?? null, status_code: c.status_code[i] ?? 'UNSET',
      start_us: start == null ? null : start + o, end_us: end == null ? null : end + o,
      input_tokens: c.input_tokens[i] ?? null, output_tokens: c.output_tokens[i] ?? null, total_cost_usd: c.total_cost_usd[i] ?? null,
      service_name: c.service_name?.[i] ?? null,
    };
  }
  return out;
}

/** ISO 8601 with up to 9 fractional digits → microseconds since the epoch (Date.parse keeps only ms). */
export function isoToUs(iso: string | null): number | null {
  if (!iso) return null;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/.exec(iso);
  if (!m) {
    const t = Date.parse(iso);
    return Number.isNaN(t) ? null : t * 1000;
  }
  const base = Date.parse(`${m[1]}${m[3] ?? 'Z'}`);
  if (Number.isNaN(base)) return null;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return base * 1000 + Number(frac);
}

/** Iterative depth-first pass: sets depth, sorts children, counts subtree sizes (no recursion limit on deep traces). */
function walk(start: Node[], seen: Set<Node>): void {
  const stack: Array<{ node: Node; depth: number; visited: boolean }> = start.map((n) => ({ node: n, depth: 0, visited: false })).reverse();
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (!top.visited) {
      top.visited = true;
      if (seen.has(top.node)) { stack.pop(); continue; } // a parent cycle in bad data
      seen.add(top.node);
      top.node.depth = top.depth;
      // Each span has one parent, so a child already seen is an ancestor: drop that back edge of a cycle.
      top.node.children = top.node.children.filter((c) => !seen.has(c)).sort(order);
      for (let i = top.node.children.length - 1; i >= 0; i--) stack.push({ node: top.node.children[i]!, depth: top.depth + 1, visited: false });
    } else {
      stack.pop();
      top.node.size = top.node.children.reduce((n, c) => n + 1 + c.size, 0);
    }
  }
}

const order = (a: Node, b: Node) => a.start - b.start || b.end - a.end || (a.span.span_id < b.span.span_id ? -1 : a.span.span_id > b.span.span_id ? 1 : 0);

export function buildTree(spans: TimelineSpan[]): Tree {
  const byId = new Map<string, Node>();
  let min = Infinity;
  let max = -Infinity;
  const untimed: Node[] = [];
  for (const span of spans) {
    const start = span.start_us ?? span.end_us;
    const node: Node = { span, start: start ?? 0, end: Math.max(start ?? 0, span.end_us ?? start ?? 0), depth: 0, children: [], size: 0 };
    if (start == null) untimed.push(node);
    else {
      if (node.start < min) min = node.start;
      if (node.end > max) max = node.end;
    }
    byId.set(span.span_id, node);
  }
  // A span with no time at all is drawn as a point at the trace start, not at the epoch (which would squash every bar).
  if (Number.isFinite(min)) for (const n of untimed) n.start = n.end = min;
  const roots: Node[] = [];
  for (const node of byId.values()) {
    const parent = node.span.parent_span_id ? byId.get(node.span.parent_span_id) : undefined;
    // A span whose parent is absent (or itself) becomes a root, as in the chat walk.
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  roots.sort(order);
  const seen = new Set<Node>();
  walk(roots, seen);
  // Spans whose parents form a cycle are reachable from no root: show them as roots too rather than drop them.
  if (seen.size < byId.size) {
    const stranded = [...byId.values()].filter((n) => !seen.has(n)).sort(order);
    for (const n of stranded) {
      if (seen.has(n)) continue;
      roots.push(n);
      walk([n], seen);
    }
  }
  if (!Number.isFinite(min)) { min = 0; max = 0; }
  return { roots, byId, min, max, count: byId.size };
}

/** Rows in display order; children of collapsed nodes are left out. */
export function visibleRows(tree: Tree, collapsed: ReadonlySet<string>): Node[] {
  const out: Node[] = [];
  const stack: Node[] = tree.roots.slice().reverse();
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    if (!collapsed.has(n.span.span_id)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}

export interface Window { from: number; to: number }

/** Left offset and width of a bar as fractions of the visible window (may fall outside 0..1 when zoomed). */
export function barFraction(node: Pick<Node, 'start' | 'end'>, w: Window): { left: number; width: number } {
  const span = Math.max(1, w.to - w.from);
  return { left: (node.start - w.from) / span, width: Math.max(0, node.end - node.start) / span };
}

/** Zooms the window by `factor` (<1 zooms in) around `center`, kept inside [min, max]. */
export function zoomWindow(w: Window, factor: number, center: number, min: number, max: number): Window {
  const full = Math.max(1, max - min);
  let width = Math.min(full, Math.max(1, (w.to - w.from) * factor));
  let from = center - (center - w.from) * (width / Math.max(1, w.to - w.from));
  if (from < min) from = min;
  if (from + width > max) from = Math.max(min, max - width);
  if (width >= full) { from = min; width = full; }
  return { from, to: from + width };
}

export type BarKind = 'agent' | 'tool' | 'llm' | 'other';
export function barKind(s: TimelineSpan): BarKind {
  const op = s.operation_name ?? '';
  if (op === 'invoke_agent' || op === 'create_agent') return 'agent';
  if (op === 'execute_tool') return 'tool';
  if (op === 'chat' || op === 'generate_content' || op === 'text_completion' || op === 'embeddings') return 'llm';
  return 'other';
}

export function spanLabel(s: TimelineSpan): string {
  return s.span_name ?? [s.operation_name, s.agent_name ?? s.tool_name ?? s.request_model].filter(Boolean).join(' ') ?? s.span_id;
}

/** Tick marks for the ruler: about `count` round steps (1-2-5 × 10^n µs) after `origin` (the trace start), inside the window. */
export function ticks(w: Window, origin: number, count = 8): number[] {
  const raw = Math.max(1, (w.to - w.from) / count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = origin + Math.ceil((w.from - origin) / step) * step; t <= w.to; t += step) out.push(t);
  return out;
}

/** Every node in display order, collapsed or not (find and "next error" walk this order). */
export function treeOrder(tree: Tree): Node[] {
  return visibleRows(tree, EMPTY);
}
const EMPTY: ReadonlySet<string> = new Set();

/** Span ids of the ancestors of `id`, nearest first (to unfold them when a hidden span is selected). */
export function ancestors(tree: Tree, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([id]);
  let p = tree.byId.get(id)?.span.parent_span_id ?? null;
  while (p && tree.byId.has(p) && !seen.has(p)) {
    out.push(p);
    seen.add(p);
    p = tree.byId.get(p)!.span.parent_span_id;
  }
  return out;
}

/** The text find-in-trace matches locally: what a row shows plus the span's identity. */
export function searchText(s: TimelineSpan): string {
  return [s.span_name, s.operation_name, s.agent_name, s.tool_name, s.request_model, s.service_name, s.span_id, s.status_code === 'ERROR' ? 'error' : null]
    .filter(Boolean).join('\u0001').toLowerCase();
}

/** Span ids, in display order, whose names (or `extra` ids: server-side matches in attributes and messages) match. */
export function findMatches(order: Node[], term: string, extra: ReadonlySet<string> = EMPTY): string[] {
  const t = term.trim().toLowerCase();
  if (!t) return [];
  return order.filter((n) => extra.has(n.span.span_id) || searchText(n.span).includes(t)).map((n) => n.span.span_id);
}

/** Span ids with status ERROR, in display order. */
export function errorIds(order: Node[]): string[] {
  return order.filter((n) => n.span.status_code === 'ERROR').map((n) => n.span.span_id);
}

/** The next (dir 1) or previous (dir -1) id of `ids` after `current` in display order, wrapping around. */
export function stepThrough(ids: string[], order: Node[], current: string | null, dir: 1 | -1): string | null {
  if (!ids.length) return null;
  const at = new Map(order.map((n, i) => [n.span.span_id, i]));
  const pos = current ? at.get(current) ?? -1 : -1;
  const sorted = ids.map((id) => [at.get(id) ?? 0, id] as const).sort((a, b) => a[0] - b[0]);
  if (dir === 1) return (sorted.find(([i]) => i > pos) ?? sorted[0]!)[1];
  return ([...sorted].reverse().find(([i]) => i < pos) ?? sorted[sorted.length - 1]!)[1];
}

/** Shifts a window (keeping its width) so [start, end] is inside it, or centred in it when wider. */
export function windowIncluding(w: Window, start: number, end: number, min: number, max: number): Window {
  const width = w.to - w.from;
  if (start >= w.from && end <= w.to) return w;
  let from = end - start > width ? start + (end - start) / 2 - width / 2 : start < w.from ? start - width * 0.1 : end - width * 0.9;
  from = Math.max(min, Math.min(from, max - width));
  return { from, to: from + width };
}

/** About one tick per 90 px of ruler, never fewer than 2. */
export const tickCountFor = (px: number) => Math.max(2, Math.floor(px / 90));

/** The trace header's numbers from the waterfall's spans: root, services, errors, wall-clock span. */
export function traceFacts(tree: Tree): { root: Node | null; services: string[]; errors: number; durationUs: number } {
  const root = tree.roots.length ? tree.roots.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a)) : null;
  const services = new Set<string>();
  let errors = 0;
  for (const n of tree.byId.values()) {
    if (n.span.service_name) services.add(n.span.service_name);
    if (n.span.status_code === 'ERROR') errors++;
  }
  // The root's service first: it is the one the trace is known by.
  const first = root?.span.service_name;
  return { root, services: first ? [first, ...[...services].filter((x) => x !== first)] : [...services], errors, durationUs: tree.max - tree.min };
}
