/**
 * Marks every occurrence of a search term in the text under an element, with the CSS Custom
 * Highlight API (`::highlight(loupe-match)` in chat.css): the DOM is not changed, so markdown,
 * folded JSON and virtualized rows render exactly as without a search. Rows that scroll into view
 * are marked too (a MutationObserver recomputes, once per frame at most).
 * `useTextHighlight` returns the number of marks drawn; `useHighlightedRanges` the marks themselves,
 * for stepping through them (`useCurrentMatch` draws the one stepped to).
 */
import { useEffect, useState, type RefObject } from 'react';

const NAME = 'loupe-match';
const CURRENT = 'loupe-match-current';

type HighlightRegistry = { set(name: string, h: unknown): void; delete(name: string): void };
type HighlightCtor = new (...ranges: Range[]) => unknown;

function registry(): { reg: HighlightRegistry; Ctor: HighlightCtor } | null {
  const css = (globalThis as { CSS?: { highlights?: HighlightRegistry } }).CSS;
  const Ctor = (globalThis as { Highlight?: HighlightCtor }).Highlight;
  return css?.highlights && Ctor ? { reg: css.highlights, Ctor } : null;
}

export function findRanges(root: Node, term: string): Range[] {
  const needle = term.toLowerCase();
  const ranges: Range[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.nodeValue ?? '').toLowerCase();
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) {
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + needle.length);
      ranges.push(r);
    }
  }
  return ranges;
}

/** Every drawn match under `ref`, in document order (recomputed as rows render). */
export function useHighlightedRanges(ref: RefObject<HTMLElement | null>, term: string | null | undefined): Range[] {
  const [ranges, setRanges] = useState<Range[]>([]);
  useEffect(() => {
    const api = registry();
    const root = ref.current;
    const t = term?.trim();
    if (!api || !root || !t) {
      api?.reg.delete(NAME);
      setRanges([]);
      return;
    }
    let frame = 0;
    const run = () => {
      frame = 0;
      const found = findRanges(root, t);
      api.reg.set(NAME, new api.Ctor(...found));
      setRanges(found);
    };
    run();
    const obs = new MutationObserver(() => { frame ||= requestAnimationFrame(run); });
    obs.observe(root, { childList: true, subtree: true, characterData: true });
    return () => {
      obs.disconnect();
      if (frame) cancelAnimationFrame(frame);
      api.reg.delete(NAME);
    };
  }, [ref, term]);
  return ranges;
}

export function useTextHighlight(ref: RefObject<HTMLElement | null>, term: string | null | undefined): number {
  return useHighlightedRanges(ref, term).length;
}

/** Draws `range` as the current match (`::highlight(loupe-match-current)`), over the other marks. */
export function useCurrentMatch(range: Range | null): void {
  useEffect(() => {
    const api = registry();
    if (!api || !range) return;
    api.reg.set(CURRENT, new api.Ctor(range));
    return () => api.reg.delete(CURRENT);
  }, [range]);
}
