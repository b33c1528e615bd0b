/**
 * Views that load on first visit (their own chunks) and survive a server that is away (issue 22.7).
 * React.lazy keeps a failed import for good, so a view first opened while `loupe serve` was stopped
 * stayed broken — a white page — after the server came back. Here a failed load is kept until
 * `retryFailedViews()` (called when the server answers again, and by the view's error boundary,
 * ViewBoundary, when it renders the view again), which makes the next render import the chunk anew.
 * Not at the next render: React renders again at once after an error, which would import again in a
 * loop and never show the error.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { onReconnect, reportUnreachable } from '../api/connection';

const failed = new Set<() => void>();

/** Lets every view whose code failed to load import it again on its next render. */
export function retryFailedViews(): void {
  for (const retry of [...failed]) retry();
  failed.clear();
}

onReconnect(retryFailedViews);

/** A view's code could not be loaded: the server is away (`offline`), or it answers but no longer has that file (Loupe was rebuilt). */
export class ViewLoadError extends Error {
  constructor(readonly offline: boolean, cause: unknown) {
    super(offline ? 'The Loupe server is not reachable' : 'This view\'s code is no longer on the server (Loupe was updated since this page was opened)', { cause });
  }
}

/** Whether the server answers at all (any HTTP status); the Electron window loads from files and always does. */
async function serverAnswers(): Promise<boolean> {
  if (window.api) return true;
  try {
    await fetch('/v1/health', { cache: 'no-store' });
    return true;
  } catch {
    return false;
  }
}

export function lazyView<P extends object = object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let current: LazyExoticComponent<ComponentType<P>>;
  const make = () =>
    lazy(async () => {
      try {
        return { default: await load() };
      } catch (err) {
        failed.add(() => (current = make()));
        const offline = !(await serverAnswers());
        if (offline) reportUnreachable(); // the banner, and the probe that brings the view back
        throw new ViewLoadError(offline, err);
      }
    });
  current = make();
  return function LazyView(props: P) {
    const View = current;
    return <View {...props} />;
  };
}
