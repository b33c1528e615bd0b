/**
 * Waterfall — the spans of one trace as a tree (collapsible) with bars to scale against a ruler,
 * zoom (buttons, +/-, ctrl+wheel around the cursor) and virtualized rows (only the visible ~40 rows
 * are in the DOM, so 20,000 spans stay smooth).
 * Props: tree (trace/model buildTree), selected span id, onSelect(span_id).
 * Keys: j/k/↑/↓ move, ←/→ collapse/expand (← on a leaf jumps to the parent), Enter toggles, + / - zoom, 0 fits.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { barFraction, barKind, spanLabel, ticks, visibleRows, zoomWindow, type Node, type Tree, type Window } from './model';
import { useKey } from '../hooks/keys';
import { fmtCost, fmtDuration, fmtTokens } from '../components/format';

const ROW = 24;

export function Waterfall(props: { tree: Tree; selected: string | null; onSelect(id: string): void }) {
  const { tree, selected, onSelect } = props;
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [win, setWin] = useState<Window>({ from: tree.min, to: tree.max });
  useEffect(() => setWin({ from: tree.min, to: tree.max }), [tree.min, tree.max]);
  const rows = useMemo(() => visibleRows(tree, collapsed), [tree, collapsed]);
  const index = useMemo(() => new Map(rows.map((n, i) => [n.span.span_id, i])), [rows]);
  const sel = selected ? index.get(selected) ?? -1 : -1;

  // Marks for the timeline e2e test: when rows were first drawn and when every span was in the tree.
  useEffect(() => { performance.mark('loupe:timeline-first-rows'); }, []);
  useEffect(() => { performance.mark('loupe:timeline-rows', { detail: tree.count }); }, [tree]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 20 });
  useEffect(() => { if (sel >= 0) v.scrollToIndex(sel, { align: 'auto' }); }, [sel, v]);

  const toggle = (id: string, open?: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      const isOpen = !next.has(id);
      if (open ?? !isOpen) next.delete(id); else next.add(id);
      return next;
    });
  const move = (d: number) => { const n = rows[Math.max(0, Math.min(rows.length - 1, (sel < 0 ? -1 : sel) + d))]; if (n) onSelect(n.span.span_id); };
  const selNode = sel >= 0 ? rows[sel] : undefined;
  const zoom = (factor: number, center?: number) => setWin((w) => zoomWindow(w, factor, center ?? (selNode ? (selNode.start + selNode.end) / 2 : (w.from + w.to) / 2), tree.min, tree.max));
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

  const barsRef = useRef<HTMLDivElement>(null);
  const onWheel = (e: React.WheelEvent) => {
    if (!e.ctrlKey || !barsRef.current) return;
    e.preventDefault();
    const r = barsRef.current.getBoundingClientRect();
    const frac = Math.min(1, Math.max(0, (e.clientX - r.left - NAME_W) / Math.max(1, r.width - NAME_W)));
    zoom(e.deltaY < 0 ? 0.8 : 1.25, win.from + frac * (win.to - win.from));
  };

  const marks = ticks(win, tree.min);
  const zoomed = win.from > tree.min || win.to < tree.max;
  return (
    <div className="wf" data-testid="waterfall" ref={barsRef}>
      <div className="wf-toolbar toolbar">
        <span className="muted" data-testid="wf-count">{tree.count} spans · {fmtDuration((tree.max - tree.min) / 1000)}</span>
        <span style={{ flex: 1 }} />
        <button onClick={() => zoom(0.5)} title="Zoom in (+)" aria-label="Zoom in">+</button>
        <button onClick={() => zoom(2)} title="Zoom out (-)" aria-label="Zoom out">−</button>
        <button onClick={() => setWin({ from: tree.min, to: tree.max })} disabled={!zoomed} title="Fit (0)">Fit</button>
        <button onClick={() => selNode && setWin(zoomWindow({ from: selNode.start, to: Math.max(selNode.end, selNode.start + 1) }, 1.1, (selNode.start + selNode.end) / 2, tree.min, tree.max))} disabled={!selNode}>Zoom to span</button>
        <button onClick={() => setCollapsed(new Set())}>Expand all</button>
        <button onClick={() => setCollapsed(new Set(tree.roots.flatMap((r) => r.children.filter((c) => c.children.length).map((c) => c.span.span_id))))}>Collapse</button>
      </div>
      <div className="wf-ruler">
        <div className="wf-name-head">Span</div>
        <div className="wf-ticks">
          {marks.map((t) => (
            <span key={t} style={{ left: `${((t - win.from) / Math.max(1, win.to - win.from)) * 100}%` }}>{fmtDuration((t - tree.min) / 1000)}</span>
          ))}
        </div>
      </div>
      <div className="wf-scroll" ref={scrollRef} onWheel={onWheel} data-testid="wf-scroll">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((vi) => {
            const n = rows[vi.index]!;
            const s = n.span;
            const { left, width } = barFraction(n, win);
            const open = !collapsed.has(s.span_id);
            return (
              <div
                key={s.span_id}
                className={`wf-row ${vi.index === sel ? 'selected' : ''} ${s.status_code === 'ERROR' ? 'error' : ''}`}
                style={{ transform: `translateY(${vi.start}px)`, height: ROW }}
                onClick={() => onSelect(s.span_id)}
                data-testid="wf-row"
                data-span={s.span_id}
              >
                <div className="wf-name" style={{ paddingLeft: 4 + Math.min(n.depth, 30) * 12 }} title={rowTitle(n)}>
                  {n.children.length ? (
                    <button className="wf-toggle" aria-label={open ? 'Collapse' : 'Expand'} onClick={(e) => { e.stopPropagation(); toggle(s.span_id); }}>{open ? '▾' : '▸'}</button>
                  ) : <span className="wf-toggle" />}
                  <span className="wf-label">{spanLabel(s)}</span>
                  {!open && <span className="faint"> +{n.size}</span>}
                </div>
                <div className="wf-track">
                  <div className={`wf-bar ${barKind(s)}`} style={{ left: `${left * 100}%`, width: `max(2px, ${width * 100}%)` }} />
                  {/* The duration sits after the bar, or inside its right end when the bar reaches the edge. */}
                  {left + width > 0.9 ? (
                    <span className="wf-dur inside" style={{ right: `${Math.max(0, (1 - left - width) * 100)}%` }}>{fmtDuration((n.end - n.start) / 1000)}</span>
                  ) : (
                    <span className="wf-dur" style={{ left: `${Math.max(0, (left + width) * 100)}%` }}>{fmtDuration((n.end - n.start) / 1000)}</span>
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

const NAME_W = 320;

/** Tooltip of a row's name: label, duration, and tokens/cost when the span has them. */
function rowTitle(n: Node): string {
  const s = n.span;
  const parts = [spanLabel(s), fmtDuration((n.end - n.start) / 1000)];
  if (s.input_tokens != null || s.output_tokens != null) parts.push(`${fmtTokens(s.input_tokens)} in / ${fmtTokens(s.output_tokens)} out tokens`);
  if (s.total_cost_usd != null) parts.push(fmtCost(s.total_cost_usd));
  return parts.join(' · ');
}
