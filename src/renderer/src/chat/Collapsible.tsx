/**
 * Collapsible — long content folded to a few screens' worth with "Show all" (and "Show less").
 * Whether content is long is decided from the text (characters and lines), not measured, so the
 * chat's virtualized rows keep a stable height and tests can rely on it.
 * Props: text (what is measured), children (what is shown), lines? (threshold, default 24).
 */
import { useState, type ReactNode } from 'react';

export const COLLAPSE_CHARS = 1600;

export function isLong(text: string, lines = 24): boolean {
  if (text.length > COLLAPSE_CHARS) return true;
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && ++n > lines) return true;
  return false;
}

export function Collapsible(props: { text: string; children: ReactNode; lines?: number }) {
  const [open, setOpen] = useState(false);
  if (!isLong(props.text, props.lines)) return <>{props.children}</>;
  const lineCount = props.text.split('\n').length;
  return (
    <div className={`collapsible ${open ? 'open' : 'folded'}`}>
      <div className="collapsible-body">{props.children}</div>
      <button className="link show-all" data-testid="show-all" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? 'Show less' : `Show all (${lineCount} lines, ${props.text.length.toLocaleString('en-US')} characters)`}
      </button>
    </div>
  );
}
