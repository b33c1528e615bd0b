/**
 * Splitter — a vertical bar between two panes that the user drags to resize one of them. It reports
 * the horizontal distance dragged and the size the pane had when the drag began; the caller clamps
 * and stores the new size (the UI store remembers it). Arrow keys move it by 16 px for keyboard users.
 * Props: label (aria), startValue (the pane's size now), onDrag(dx, startValue).
 */
import { useRef } from 'react';

export function Splitter(props: { label: string; startValue: number; onDrag(dx: number, start: number): void }) {
  const start = useRef(0);
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={props.label}
      tabIndex={0}
      data-testid="splitter"
      onPointerDown={(e) => {
        e.preventDefault();
        const x0 = e.clientX;
        start.current = props.startValue;
        const move = (ev: PointerEvent) => props.onDrag(ev.clientX - x0, start.current);
        const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); document.body.classList.remove('resizing'); };
        document.body.classList.add('resizing');
        window.addEventListener('pointermove', move);
        window.addEventListener('pointerup', up);
      }}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') props.onDrag(-16, props.startValue);
        else if (e.key === 'ArrowRight') props.onDrag(16, props.startValue);
        else return;
        e.preventDefault();
      }}
    />
  );
}
