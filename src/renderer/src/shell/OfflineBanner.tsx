/**
 * The one banner shown while the server does not answer (api/connection.ts). Views keep what they
 * show; queries resume and refetch by themselves when the server is back, so there is nothing to click.
 */
import { useOffline } from '../api/connection';

export function OfflineBanner() {
  const offline = useOffline();
  if (!offline) return null;
  return (
    <div className="offline-banner" role="status" data-testid="offline-banner">
      <strong>Lost connection to the Loupe server.</strong> Showing what was already loaded; reconnecting by itself when it is back…
    </div>
  );
}
