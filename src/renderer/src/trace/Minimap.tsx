/**
 * Minimap — the whole trace in a strip above the waterfall: every visible row as a thin bar to
 * scale (errors in red, drawn last so one failing span among 20,000 shows), and a frame around what
 * the waterfall shows now (rows scrolled to × the zoomed time window). A click or drag moves the view
 * there: rows by scrolling, time by centring the window (when zoomed). Drawn on a canvas: 20,000 bars
 * are one pass of fillRect.
 * Props: tree, rows (visible rows in order), win (time window), scrollRef (the rows' scroller),
 * rowHeight, nameWidth (px left of the time axis), onWindow(w).
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import { barKind, type Node, type Tree, type Window } from './model';
import { useWidth } from '../hooks/width';

const H = 44;

export function Minimap(props: { tree: Tree; rows: Node[]; win: Window; scrollRef: RefObject<HTMLDivElement | null>; rowHeight: number; nameWidth: number; onWindow(w: Window): void }) {
  const { tree, rows, win } = props;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const width = useWidth(boxRef, 600);
  const [scroll, setScroll] = useState({ top: 0, height: 1 });

  useEffect(() => {
    const el = props.scrollRef.current;
    if (!el) return;
    const on = () => setScroll({ top: el.scrollTop, height: el.clientHeight });
    on();
    el.addEventListener('scroll', on, { passive: true });
    const ro = new ResizeObserver(on);
    ro.observe(el);
    return () => { el.removeEventListener('scroll', on); ro.disconnect(); };
  }, [props.scrollRef]);

  useEffect(() => {
    const c = canvasRef.current;
    if (!c || width <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(width * dpr);
    c.height = Math.round(H * dpr);
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, H);
    const css = getComputedStyle(c);
    const color = (name: string) => css.getPropertyValue(name).trim() || '#888';
    const colors = { agent: color('--bar-agent'), tool: color('--bar-tool'), llm: color('--bar-llm'), other: color('--bar-other') };
    const span = Math.max(1, tree.max - tree.min);
    const rowH = H / Math.max(1, rows.length);
    const h = Math.max(1, rowH);
    const errors: [Node, number][] = [];
    for (let i = 0; i < rows.length; i++) {
      const n = rows[i]!;
      if (n.span.status_code === 'ERROR') { errors.push([n, i]); continue; }
      g.fillStyle = colors[barKind(n.span)];
      g.fillRect(((n.start - tree.min) / span) * width, i * rowH, Math.max(1, ((n.end - n.start) / span) * width), h);
    }
    g.fillStyle = color('--error');
    for (const [n, i] of errors) {
      g.fillRect(((n.start - tree.min) / span) * width - 1, i * rowH - 1, Math.max(3, ((n.end - n.start) / span) * width), Math.max(3, h));
    }
  }, [rows, tree, width]);

  const total = rows.length * props.rowHeight;
  const span = Math.max(1, tree.max - tree.min);
  const frame = {
    left: ((win.from - tree.min) / span) * 100,
    width: ((win.to - win.from) / span) * 100,
    top: total ? (scroll.top / total) * H : 0,
    height: total ? Math.max(3, Math.min(H, (scroll.height / total) * H)) : H,
  };

  const moveTo = (e: React.PointerEvent) => {
    const r = boxRef.current!.getBoundingClientRect();
    const fx = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
    const fy = Math.min(1, Math.max(0, (e.clientY - r.top) / H));
    const el = props.scrollRef.current;
    el?.scrollTo({ top: fy * total - el.clientHeight / 2 });
    const w = win.to - win.from;
    if (w < span) {
      const from = Math.max(tree.min, Math.min(tree.min + fx * span - w / 2, tree.max - w));
      props.onWindow({ from, to: from + w });
    }
  };
  const [dragging, setDragging] = useState(false);

  return (
    <div className="wf-minimap" style={{ gridTemplateColumns: `${props.nameWidth}px minmax(0, 1fr)` }}>
      <div className="wf-minimap-label faint">Overview</div>
      <div
        ref={boxRef}
        className="wf-minimap-box"
        data-testid="minimap"
        style={{ height: H }}
        onPointerDown={(e) => { (e.target as Element).setPointerCapture?.(e.pointerId); setDragging(true); moveTo(e); }}
        onPointerMove={(e) => { if (dragging) moveTo(e); }}
        onPointerUp={() => setDragging(false)}
        title="The whole trace: click or drag to move the view"
      >
        <canvas ref={canvasRef} style={{ width: '100%', height: H, display: 'block' }} aria-label="Overview of every span" role="img" />
        <div className="wf-minimap-frame" data-testid="minimap-frame" style={{ left: `${frame.left}%`, width: `${frame.width}%`, top: frame.top, height: frame.height }} />
      </div>
    </div>
  );
}
