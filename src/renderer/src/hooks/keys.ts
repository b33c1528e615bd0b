/**
 * Keyboard navigation. `useKey` binds global keys (ignored while typing in a field, except Escape);
 * `useListKeys` gives j/k/arrow selection and Enter-to-open over a list. The `?` overlay
 * (components/KeyboardHelp) lists the keys in KEYMAP, so keep it in sync when adding a binding.
 */
import { useEffect } from 'react';
import { useLatest } from './latest';

export const KEYMAP: Array<[string, string]> = [
  ['j / ↓', 'Next row, turn or span'],
  ['k / ↑', 'Previous row, turn or span'],
  ['Enter', 'Open the selected item (timeline: fold/unfold)'],
  ['← / →', 'Timeline: collapse (or go to parent) / expand'],
  ['+ / - / 0', 'Timeline: zoom in / out / fit (the selected span stays in view)'],
  ['f', 'Trace: find in trace'],
  ['n / N', 'Trace, or a conversation opened from a search: next / previous match'],
  ['e', 'Trace: next span that failed'],
  ['/', 'Focus the search box'],
  ['Esc', 'Close the panel or overlay, go back'],
  ['g c', 'Go to conversations'],
  ['t', 'Toggle light / dark theme'],
  ['i', 'Import files'],
  ['?', 'Show this help'],
];

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

/** Binds `key` (KeyboardEvent.key) while mounted. Handler returns false to let the event through. */
export function useKey(key: string | string[], handler: (e: KeyboardEvent) => void | boolean, enabled = true): void {
  const ref = useLatest(handler);
  // The keys as one string, so a new array of the same keys on each render does not rebind.
  const sig = JSON.stringify(Array.isArray(key) ? key : [key]);
  useEffect(() => {
    if (!enabled) return;
    const keys = JSON.parse(sig) as string[];
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (!keys.includes(e.key)) return;
      if (e.key !== 'Escape' && typing(e.target)) return;
      if (ref.current(e) === false) return;
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [sig, enabled, ref]);
}

/** j/k/↑/↓ move `selected` within [0, count); Enter calls onOpen(selected). */
export function useListKeys(opts: { count: number; selected: number; setSelected(i: number): void; onOpen?(i: number): void; enabled?: boolean }): void {
  const { count, selected, setSelected, onOpen, enabled = true } = opts;
  useKey(['j', 'ArrowDown'], () => { if (count) setSelected(Math.min(count - 1, selected + 1)); }, enabled);
  useKey(['k', 'ArrowUp'], () => { if (count) setSelected(Math.max(0, selected - 1)); }, enabled);
  useKey('Enter', () => { if (selected >= 0 && selected < count && onOpen) onOpen(selected); else return false; }, enabled);
}

/** `/` focuses the element marked `data-search` on the page. */
export function focusSearch(): boolean {
  const el = document.querySelector<HTMLInputElement>('[data-search]');
  if (!el) return false;
  el.focus();
  el.select();
  return true;
}

/**
 * Escape closes the innermost thing: handlers form a stack and only the most recently enabled one
 * runs (an open overlay before a detail panel before "go back").
 */
const escapeStack: Array<{ current: () => void }> = [];
let escapeBound = false;

export function useEscape(handler: () => void, enabled = true): void {
  const ref = useLatest(handler);
  useEffect(() => {
    if (!enabled) return;
    bindEscape();
    const entry = ref;
    escapeStack.push(entry);
    return () => {
      const i = escapeStack.lastIndexOf(entry);
      if (i >= 0) escapeStack.splice(i, 1);
    };
  }, [enabled, ref]);
}

/** Esc in a text field only leaves the field (so j/k work again); otherwise the innermost handler runs. */
function bindEscape(): void {
  if (escapeBound) return;
  escapeBound = true;
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    if (typing(e.target)) {
      (e.target as HTMLElement).blur();
      return;
    }
    const top = escapeStack[escapeStack.length - 1];
    if (!top) return;
    e.preventDefault();
    top.current();
  });
}

/** Mount once (shell) so Esc leaves text fields on pages that register no Esc handler. */
export function useEscapeBinding(): void {
  useEffect(bindEscape, []);
}
