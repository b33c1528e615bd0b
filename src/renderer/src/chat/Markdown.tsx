/**
 * Markdown — message text as markdown (chat/MarkdownView.tsx: the renderer, the highlighter and their
 * grammars). Loaded as its own chunk on first use so the app boots without it; until it arrives the
 * text shows as plain, wrapped text (the same words, so nothing jumps but the formatting). When the
 * chunk cannot be fetched (the server is away) the text stays plain; the next mount tries again.
 * Props: text.
 */
import { Component, Suspense, type ReactNode } from 'react';
import { lazyView } from '../shell/lazyView';

const MarkdownView = lazyView(() => import('./MarkdownView').then((m) => m.default));

const plain = (text: string) => <div className="md md-plain">{text}</div>;

export function Markdown({ text }: { text: string }) {
  return (
    <PlainOnError text={text}>
      <Suspense fallback={plain(text)}>
        <MarkdownView text={text} />
      </Suspense>
    </PlainOnError>
  );
}

class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    return this.state.failed ? plain(this.props.text) : this.props.children;
  }
}
