/**
 * ErrorNote — what went wrong with a request, in words (never the browser's raw text). Nothing is
 * shown for "server not reachable": the shell's one offline banner says that, and the view keeps
 * its data until the server is back (api/connection.ts).
 * Props: error (or null), what? ("conversations" → "Could not load conversations: …"), testId?.
 */
import { isUnreachable } from '../api/connection';

export function ErrorNote(props: { error: Error | null | undefined; what?: string; testId?: string }) {
  const { error, what } = props;
  if (!error || isUnreachable(error)) return null;
  return (
    <div className="error-text" role="alert" data-testid={props.testId ?? 'error-note'}>
      {what ? `Could not load ${what}: ` : ''}
      {error.message}
    </div>
  );
}
