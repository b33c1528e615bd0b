/**
 * Waterfall — the spans of one trace as a tree (collapsible) with bars to scale against a ruler, and
 * virtualized rows (only the visible ~40 rows are in the DOM, so 20,000 spans stay smooth).
 * - Zoom: buttons, + / - / 0, ctrl+wheel around the cursor, or drag a range on the ruler. Zooming
 *   with a span selected keeps that span in view.
 * - A minimap (traces of more than MINIMAP_MIN spans) shows every span's bar and where the view is;
 *   a click or drag on it scrolls there.
 * - The span-name column is resizable (drag its edge in the ruler); its width is remembered.
 * - Selecting a span inside a collapsed subtree unfolds its ancestors and scrolls to it.
 * Props: tree (trace/model buildTree), selected span id, onSelect(span_id), matches? (find-in-trace
 * hits, marked), toolbar? (extra controls at the start of the toolbar), scores? (badges per span id, issue 20).
 * Keys: j/k/↑/↓ move, ←/→ collapse/expand (← on a leaf jumps to the parent), Enter toggles, + / - zoom, 0 fits.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ancestors, barFraction, barKind, spanLabel, tickCountFor, ticks, visibleRows, windowIncluding, zoomWindow, type Node, type Tree, type Window } from './model';
import { useKey } from '../hooks/keys';
import { fmtCost, fmtDuration, fmtTokens } from '../components/format';
import { useUi } from '../stores/ui';
import { Minimap } from './Minimap';
import { useWidth } from '../hooks/width';
import { ScoreBadges } from '../scores/ScoreBadges';
import type { Score } from '../scores/format';

const ROW = 24;
export const MINIMAP_MIN = 200;

export function Waterfall(props: { tree: Tree; selected: string | null; onSelect(id: string): void; matches?: ReadonlySet<string>; toolbar?: ReactNode; scores?: ReadonlyMap<string, Score[]> }) {
  const { tree, selected, onSelect } = props;
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [win, setWin] = useState<Window>({ from: tree.min, to: tree.max });
  useEffect(() => setWin({ from: tree.min, to: tree.max }), [tree.min, tree.max]);
  const rows = useMemo(() => visibleRows(tree, collapsed), [tree, collapsed]);
  const index = useMemo(() => new Map(rows.map((n, i) => [n.span.span_id, i])), [rows]);
  const sel = selected ? index.get(selected) ?? -1 : -1;
  const storedNameW = useUi((s) => s.layout.waterfallNameWidth);
  const setLayout = useUi((s) => s.setLayout);
  // In a narrow view (a small window, the span panel open) the name column gives way to the time
  // axis: at most 40% of the waterfall, never under 140 px (issue 22.10: a 60 px timeline at 1024).
  const boxRef = useRef<HTMLDivElement>(null);
  const boxPx = useWidth(boxRef);
  const nameW = boxPx > 0 ? Math.max(140, Math.min(storedNameW, Math.floor(boxPx * 0.4))) : storedNameW;

  // Marks for the timeline e2e test: when rows were first drawn and when every span was in the tree.
  useEffect(() => { performance.mark('loupe:timeline-first-rows'); }, []);
  useEffect(() => { performance.mark('loupe:timeline-rows', { detail: tree.count }); }, [tree]);

  // A selected span hidden in a collapsed subtree (deep link, find, next error): unfold the way to it.
  useEffect(() => {
    if (!selected || index.has(selected) || !tree.byId.has(selected)) return;
    const up = ancestors(tree, selected);
    setCollapsed((c) => {
      if (!up.some((a) => c.has(a))) return c;
      const next = new Set(c);
      for (const a of up) next.delete(a);
      return next;
    });
  }, [selected, index, tree]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 20 });
  useEffect(() => { if (sel >= 0) v.scrollToIndex(sel, { align: 'auto' }); }, [sel, v]);

  const selNode = sel >= 0 ? rows[sel] : selected ? tree.byId.get(selected) : undefined;
  // A selected span that is out of the time window is brought into it (find, next error, a click in the minimap).
  useEffect(() => {
    if (selNode) setWin((w) => windowIncluding(w, selNode.start, Math.max(selNode.end, selNode.start + 1), tree.min, tree.max));
  }, [selNode, tree.min, tree.max]);

  const toggle = (id: string, open?: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      const isOpen = !next.has(id);
      if (open ?? !isOpen) next.delete(id); else next.add(id);
      return next;
    });
  const move = (d: number) => { const n = rows[Math.max(0, Math.min(rows.length - 1, (sel < 0 ? -1 : sel) + d))]; if (n) onSelect(n.span.span_id); };
  /** Zooms by `factor` around `center` (default: the selected span, else the middle); the selected span stays in view. */
  const zoom = (factor: number, center?: number) =>
    setWin((w) => {
      const c = center ?? (selNode ? (selNode.start + selNode.end) / 2 : (w.from + w.to) / 2);
      const z = zoomWindow(w, factor, c, tree.min, tree.max);
      return selNode ? windowIncluding(z, selNode.start, Math.max(selNode.end, selNode.start + 1), tree.min, tree.max) : z;
    });
  useKey(['j', 'ArrowDown'], () => move(1));
  useKey(['k', 'ArrowUp'], () => move(-1));
  useKey('ArrowRight', () => { if (selNode?.children.length) toggle(selNode.span.span_id, true); });
  useKey('ArrowLeft', () => {
    if (!selNode) return;
    if (selNode.children.length && !collapsed.has(selNode.span.span_id)) toggle(selNode.span.span_id, false);
    else if (selNode.span.parent_span_id && tree.byId.has(selNode.span.parent_span_id)) onSelect(selNode.span.parent_span_id);
  });
  useKey('Enter', () => { if (selNode?.children.length) toggle(selNode.span.span_id); else return false; });
  useKey(['+', '='], () => zoom(0.5));
  useKey('-', () => zoom(2));
  useKey('0', () => setWin({ from: tree.min, to: tree.max }));

  // The track's width in px decides how many ruler labels fit.
  const trackRef = useRef<HTMLDivElement>(null);
  const trackPx = useWidth(trackRef, 600);

  const fracAt = (clientX: number) => {
    const r = trackRef.current!.getBoundingClientRect();
    return Math.min(1, Math.max(0, (clientX - r.left) / Math.max(1, r.width)));
  };
  const onWheel = (e: React.WheelEvent) => {
    if (!e.ctrlKey || !trackRef.current) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, win.from + fracAt(e.clientX) * (win.to - win.from));
  };

  // Drag a range on the ruler to zoom to it.
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);
  const onRulerDown = (e: React.PointerEvent) => {
    if (e.button !== 0) return;
    (e.target as Element).setPointerCapture?.(e.pointerId);
    const f = fracAt(e.clientX);
    setDrag({ a: f, b: f });
  };
  const onRulerMove = (e: React.PointerEvent) => { if (drag) setDrag({ ...drag, b: fracAt(e.clientX) }); };
  const onRulerUp = () => {
    if (!drag) return;
    const lo = Math.min(drag.a, drag.b);
    const hi = Math.max(drag.a, drag.b);
    setDrag(null);
    if (hi - lo < 0.005) return; // a click, not a range
    const span = win.to - win.from;
    setWin({ from: win.from + lo * span, to: Math.max(win.from + hi * span, win.from + lo * span + 1) });
  };

  // Resize the name column by dragging its edge.
  const onSplitDown = (e: React.PointerEvent) => {
    e.stopPropagation();
    const startX = e.clientX;
    const startW = nameW;
    const move = (ev: PointerEvent) => setLayout({ waterfallNameWidth: Math.max(140, Math.min(700, startW + ev.clientX - startX)) });
    const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };

  const marks = ticks(win, tree.min, tickCountFor(trackPx));
  const zoomed = win.from > tree.min || win.to < tree.max;
  const cols = { gridTemplateColumns: `${nameW}px minmax(0, 1fr)` };
  return (
    <div className="wf" data-testid="waterfall" ref={boxRef}>
      <div className="wf-toolbar toolbar">
        {props.toolbar}
        <span style={{ flex: 1 }} />
        <span className="muted" data-testid="wf-count">{tree.count} spans · {fmtDuration((tree.max - tree.min) / 1000)}</span>
        <button onClick={() => zoom(0.5)} title="Zoom in (+)" aria-label="Zoom in">+</button>
        <button onClick={() => zoom(2)} title="Zoom out (-)" aria-label="Zoom out">−</button>
        <button onClick={() => setWin({ from: tree.min, to: tree.max })} disabled={!zoomed} title="Fit (0)" data-testid="zoom-fit">Fit</button>
        <button onClick={() => selNode && setWin(zoomWindow({ from: selNode.start, to: Math.max(selNode.end, selNode.start + 1) }, 1.1, (selNode.start + selNode.end) / 2, tree.min, tree.max))} disabled={!selNode}>Zoom to span</button>
        <button onClick={() => setCollapsed(new Set())}>Expand all</button>
        <button onClick={() => setCollapsed(new Set(tree.roots.flatMap((r) => r.children.filter((c) => c.children.length).map((c) => c.span.span_id))))}>Collapse</button>
      </div>
      {tree.count >= MINIMAP_MIN && (
        <Minimap tree={tree} rows={rows} win={win} scrollRef={scrollRef} rowHeight={ROW} nameWidth={nameW} onWindow={setWin} />
      )}
      <div className="wf-ruler" style={cols}>
        <div className="wf-name-head">
          Span
          <span className="wf-split" onPointerDown={onSplitDown} role="separator" aria-orientation="vertical" aria-label="Resize the span name column" title="Drag to resize" />
        </div>
        <div
          className="wf-ticks"
          ref={trackRef}
          data-testid="wf-ruler"
          onPointerDown={onRulerDown}
          onPointerMove={onRulerMove}
          onPointerUp={onRulerUp}
          title="Drag a range to zoom to it"
        >
          {marks.map((t) => (
            <span key={t} style={{ left: `${((t - win.from) / Math.max(1, win.to - win.from)) * 100}%` }}>{fmtDuration((t - tree.min) / 1000)}</span>
          ))}
          {drag && <div className="wf-drag" style={{ left: `${Math.min(drag.a, drag.b) * 100}%`, width: `${Math.abs(drag.b - drag.a) * 100}%` }} />}
        </div>
      </div>
      <div className="wf-scroll" ref={scrollRef} onWheel={onWheel} data-testid="wf-scroll">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((vi) => {
            const n = rows[vi.index]!;
            const s = n.span;
            const { left, width } = barFraction(n, win);
            const open = !collapsed.has(s.span_id);
            const dur = fmtDuration((n.end - n.start) / 1000);
            return (
              <div
                key={s.span_id}
                className={`wf-row ${vi.index === sel ? 'selected' : ''} ${s.status_code === 'ERROR' ? 'error' : ''} ${props.matches?.has(s.span_id) ? 'match' : ''}`}
                style={{ transform: `translateY(${vi.start}px)`, height: ROW, ...cols }}
                onClick={() => onSelect(s.span_id)}
                data-testid="wf-row"
                data-span={s.span_id}
                aria-selected={vi.index === sel}
              >
                <div className="wf-name" style={{ paddingLeft: 4 + Math.min(n.depth, 30) * 12 }} title={rowTitle(n)}>
                  {n.children.length ? (
                    <button className="wf-toggle" aria-label={open ? 'Collapse' : 'Expand'} onClick={(e) => { e.stopPropagation(); toggle(s.span_id); }}>{open ? '▾' : '▸'}</button>
                  ) : <span className="wf-toggle" />}
                  <span className="wf-label">{spanLabel(s)}</span>
                  {!open && <span className="faint"> +{n.size}</span>}
                  <ScoreBadges scores={props.scores?.get(s.span_id)} compact />
                </div>
                <div className="wf-track">
                  <div className={`wf-bar ${barKind(s)}`} style={{ left: `${left * 100}%`, width: `max(2px, ${width * 100}%)` }} />
                  {/* The duration sits after the bar, or before it when the bar reaches the right edge: always on the row's background. */}
                  {left + width > 0.85 ? (
                    <span className="wf-dur before" style={{ right: `${Math.min(100, Math.max(0, (1 - left) * 100))}%` }}>{dur}</span>
                  ) : (
                    <span className="wf-dur" style={{ left: `${Math.max(0, (left + width) * 100)}%` }}>{dur}</span>
                  )}
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** Tooltip of a row's name: label, duration, and tokens/cost when the span has them. */
function rowTitle(n: Node): string {
  const s = n.span;
  const parts = [spanLabel(s), fmtDuration((n.end - n.start) / 1000)];
  if (s.service_name) parts.push(`service ${s.service_name}`);
  if (s.input_tokens != null || s.output_tokens != null) parts.push(`${fmtTokens(s.input_tokens)} in / ${fmtTokens(s.output_tokens)} out tokens`);
  if (s.total_cost_usd != null) parts.push(fmtCost(s.total_cost_usd));
  return parts.join(' · ');
}
