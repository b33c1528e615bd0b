/**
 * Markdown — message text as markdown (chat/MarkdownView.tsx: the renderer, the highlighter and their
 * grammars). Loaded as its own chunk on first use so the app boots without it; until it arrives the
 * text shows as plain, wrapped text (the same words, so nothing jumps but the formatting).
 * Props: text.
 */
import { lazy, Suspense } from 'react';

const MarkdownView = lazy(() => import('./MarkdownView'));

export function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="md md-plain">{text}</div>}>
      <MarkdownView text={text} />
    </Suspense>
  );
}
