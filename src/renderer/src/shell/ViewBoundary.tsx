/**
 * The error boundary around the current view (issue 22.7): whatever a view throws while rendering, the
 * shell stays and the view's place says what happened instead of the whole app turning white.
 * - Server away (a view's code or data could not be fetched): an offline note; the view is rendered
 *   again by itself when the server answers (api/connection.ts onReconnect).
 * - Loupe rebuilt since the page was opened: a note with a reload button.
 * - Anything else: the error's message and "Try again".
 * Moving to another view (another URL path) clears the error.
 */
import { Component, type ReactNode } from 'react';
import { isUnreachable, onReconnect } from '../api/connection';
import { retryFailedViews, ViewLoadError } from './lazyView';

interface Props {
  /** The view's path: a new one clears the error. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  resetKey: string;
}

const isOfflineError = (e: Error) => (e instanceof ViewLoadError && e.offline) || isUnreachable(e);

export class ViewBoundary extends Component<Props, State> {
  state: State = { error: null, resetKey: this.props.resetKey };
  private stopWaiting: (() => void) | null = null;

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  componentDidMount(): void {
    this.waitForServer();
  }

  componentDidUpdate(): void {
    this.waitForServer();
  }

  componentWillUnmount(): void {
    this.stopWaiting?.();
  }

  /** While the view is down because the server is away, render it again when the server answers. */
  private waitForServer(): void {
    const waiting = !!this.state.error && isOfflineError(this.state.error);
    if (waiting && !this.stopWaiting) {
      this.stopWaiting = onReconnect(() => this.retry());
    } else if (!waiting && this.stopWaiting) {
      this.stopWaiting();
      this.stopWaiting = null;
    }
  }

  private retry = () => {
    retryFailedViews();
    this.setState({ error: null });
  };

  render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    if (isOfflineError(error)) {
      return (
        <div className="page" data-testid="view-offline">
          <div className="empty">
            <h2>Waiting for the Loupe server</h2>
            <div className="muted">
              This view could not be loaded because the server is not reachable. It opens by itself as soon as the server is back
              (start it again with <code>loupe serve</code>, or reopen the app).
            </div>
          </div>
        </div>
      );
    }
    const stale = error instanceof ViewLoadError;
    return (
      <div className="page" data-testid="view-error">
        <div className="empty">
          <h2>{stale ? 'Loupe was updated' : 'This view stopped with an error'}</h2>
          <div className="error-text" role="alert">{error.message}</div>
          <div className="actions">
            {stale ? <button className="primary" onClick={() => window.location.reload()}>Reload the page</button> : <button className="primary" onClick={this.retry}>Try again</button>}
          </div>
        </div>
      </div>
    );
  }
}
