/**
 * The waterfall's pure functions (src/renderer/src/trace/model.ts): time parsing to microseconds,
 * tree order (same rule as the chat walk: start, longer first, span_id), orphans and parent cycles,
 * collapsing, zoom bounds, bar fractions and ruler ticks. No browser needed; it lives with the e2e
 * tests because it tests renderer code this stream owns.
 */
import { beforeAll, describe, expect, it } from 'vitest';

// Renderer code (tsconfig.web.json, bundler resolution) is loaded at run time; vitest transpiles it.
interface Span { span_id: string; parent_span_id: string | null; span_name: string | null; operation_name: string | null; agent_name: string | null; tool_name: string | null; request_model: string | null; status_code: string; start_us: number | null; end_us: number | null; input_tokens?: number | null; output_tokens?: number | null; total_cost_usd?: number | null }
interface Node { span: Span; start: number; end: number; depth: number; children: Node[]; size: number }
interface Tree { roots: Node[]; byId: Map<string, Node>; min: number; max: number; count: number }
interface Model {
  isoToUs(iso: string | null): number | null;
  buildTree(spans: Span[]): Tree;
  spansFromColumns(t: { count: number; origin_us: number | null; columns: Record<string, unknown[]> }): Span[];
  visibleRows(tree: Tree, collapsed: ReadonlySet<string>): Node[];
  barFraction(n: { start: number; end: number }, w: { from: number; to: number }): { left: number; width: number };
  zoomWindow(w: { from: number; to: number }, factor: number, center: number, min: number, max: number): { from: number; to: number };
  ticks(w: { from: number; to: number }, origin: number, count?: number): number[];
}
const MODEL = '../../src/renderer/src/trace/model.ts';
let m: Model;

const span = (id: string, parent: string | null, start: string, end: string): Span => ({
  span_id: id, parent_span_id: parent, span_name: id, operation_name: null, agent_name: null, tool_name: null, request_model: null, status_code: 'UNSET',
  start_us: m.isoToUs(`2026-11-22T10:00:${start}Z`), end_us: m.isoToUs(`2026-11-22T10:00:${end}Z`),
});

describe('timeline model', () => {
  beforeAll(async () => {
    m = (await import(/* @vite-ignore */ MODEL)) as Model;
  });

  it('parses ISO times to exact microseconds, with or without a fraction or offset', () => {
    const base = Date.parse('2026-11-22T10:15:30Z') * 1000;
    expect(m.isoToUs('2026-11-22T10:15:30.123456Z')).toBe(base + 123_456);
    expect(m.isoToUs('2026-11-22T10:15:30.123456789Z')).toBe(base + 123_456);
    expect(m.isoToUs('2026-11-22T10:15:30Z')).toBe(base);
    expect(m.isoToUs('2026-11-22T11:15:30.5+01:00')).toBe(base + 500_000);
    expect(m.isoToUs(null)).toBeNull();
    expect(m.isoToUs('not a time')).toBeNull();
  });

  it('orders siblings by start, then longer first, then span id; orphans become roots; depth and sizes are set', () => {
    const tree = m.buildTree([
      span('c', 'root', '01.000000', '02.000000'),
      span('b', 'root', '01.000000', '05.000000'),
      span('a', 'root', '03.000000', '04.000000'),
      span('d', 'root', '01.000000', '02.000000'),
      span('root', null, '00.000000', '06.000000'),
      span('orphan', 'missing', '00.500000', '00.600000'),
      span('bb', 'b', '01.100000', '01.200000'),
    ]);
    expect(tree.roots.map((n) => n.span.span_id)).toEqual(['root', 'orphan']);
    const root = tree.byId.get('root')!;
    expect(root.children.map((n) => n.span.span_id)).toEqual(['b', 'c', 'd', 'a']);
    expect(tree.byId.get('bb')!.depth).toBe(2);
    expect(root.size).toBe(5);
    expect(tree.count).toBe(7);
    expect(tree.max - tree.min).toBe(6_000_000);
  });

  it('keeps spans whose parents form a cycle (shown from the earliest), and self-parents, without looping', () => {
    const tree = m.buildTree([span('x', 'y', '01.0', '02.0'), span('y', 'x', '01.5', '02.5'), span('z', 'z', '00.0', '03.0')]);
    const rows = m.visibleRows(tree, new Set());
    expect(rows.map((n) => [n.span.span_id, n.depth])).toEqual([['z', 0], ['x', 0], ['y', 1]]);
    expect(tree.byId.get('x')!.size).toBe(1);
    expect(tree.count).toBe(3);
  });

  it('hides the subtrees of collapsed nodes', () => {
    const tree = m.buildTree([span('r', null, '00.0', '09.0'), span('a', 'r', '01.0', '02.0'), span('a1', 'a', '01.1', '01.2'), span('b', 'r', '03.0', '04.0')]);
    expect(m.visibleRows(tree, new Set()).map((n) => n.span.span_id)).toEqual(['r', 'a', 'a1', 'b']);
    expect(m.visibleRows(tree, new Set(['a'])).map((n) => n.span.span_id)).toEqual(['r', 'a', 'b']);
    expect(m.visibleRows(tree, new Set(['r'])).map((n) => n.span.span_id)).toEqual(['r']);
  });

  it('turns the columns of traces.timeline into spans with absolute µs times (nulls kept)', () => {
    const origin = 1_795_000_000_000_000;
    const spans = m.spansFromColumns({
      count: 3, origin_us: origin,
      columns: {
        span_id: ['r', 'c', 'open'], parent_span_id: [null, 'r', 'r'], span_name: ['invoke_agent x', 'chat m', 'wait'],
        operation_name: ['invoke_agent', 'chat', null], agent_name: ['x', null, null], tool_name: [null, null, null],
        request_model: [null, 'm', null], response_model: [null, 'm-1', null], status_code: ['UNSET', 'ERROR', 'OK'],
        start_us: [0, 1_500, 2_000], end_us: [9_000, 2_500, null], input_tokens: [null, 10, null], output_tokens: [null, 3, null],
        total_cost_usd: [null, 0.25, null],
      },
    });
    expect(spans.map((x) => [x.span_id, x.parent_span_id, x.start_us, x.end_us, x.status_code])).toEqual([
      ['r', null, origin, origin + 9_000, 'UNSET'], ['c', 'r', origin + 1_500, origin + 2_500, 'ERROR'], ['open', 'r', origin + 2_000, null, 'OK'],
    ]);
    expect(spans[1]).toMatchObject({ span_name: 'chat m', request_model: 'm', input_tokens: 10, output_tokens: 3, total_cost_usd: 0.25 });
    const tree = m.buildTree(spans);
    expect(tree.min).toBe(origin);
    expect(tree.max).toBe(origin + 9_000);
    // A span without an end is drawn as a point at its start.
    expect(tree.byId.get('open')!.end).toBe(origin + 2_000);
    expect(m.spansFromColumns({ count: 0, origin_us: null, columns: { span_id: [] } })).toEqual([]);
    // A span with no times sits at the trace start instead of stretching the window back to the epoch.
    const untimed = m.buildTree([...spans, { ...spans[2]!, span_id: 'untimed', start_us: null, end_us: null }]);
    expect([untimed.min, untimed.max]).toEqual([origin, origin + 9_000]);
    expect(untimed.byId.get('untimed')).toMatchObject({ start: origin, end: origin });
    expect(m.buildTree([{ ...spans[0]!, start_us: null, end_us: null }])).toMatchObject({ min: 0, max: 0, count: 1 });
  });

  it('maps bars into the window and keeps zoom inside the trace', () => {
    expect(m.barFraction({ start: 250, end: 500 }, { from: 0, to: 1000 })).toEqual({ left: 0.25, width: 0.25 });
    const w = m.zoomWindow({ from: 0, to: 1000 }, 0.5, 500, 0, 1000);
    expect(w).toEqual({ from: 250, to: 750 });
    expect(m.zoomWindow({ from: 0, to: 1000 }, 0.5, 0, 0, 1000)).toEqual({ from: 0, to: 500 });
    expect(m.zoomWindow({ from: 800, to: 1000 }, 0.5, 1000, 0, 1000)).toEqual({ from: 900, to: 1000 });
    expect(m.zoomWindow(w, 10, 500, 0, 1000)).toEqual({ from: 0, to: 1000 });
  });

  it('puts ruler ticks on round steps from the trace start', () => {
    const origin = 1_700_000_000_123_456;
    const t = m.ticks({ from: origin, to: origin + 10_000_000 }, origin, 5);
    expect(t.map((x) => x - origin)).toEqual([0, 2_000_000, 4_000_000, 6_000_000, 8_000_000, 10_000_000]);
  });
});
