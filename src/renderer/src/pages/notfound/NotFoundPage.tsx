/**
 * Shown for any route that matches no view (a mistyped or outdated deep link), with the way back:
 * the project's conversations and every view. Never redirects, so a bad link cannot loop.
 */
import { Link, useLocation } from 'react-router-dom';
import { routes } from '../../routes';
import { projectPath, useProject } from '../../hooks/project';

export function NotFoundPage() {
  const project = useProject();
  const { pathname } = useLocation();
  return (
    <div className="page" data-testid="not-found">
      <div className="empty">
        <h2>Nothing here</h2>
        <div className="muted">
          No view answers <code className="mono">#{decodeURIComponent(pathname)}</code>.
        </div>
        <div className="actions">
          <Link className="button primary" to={projectPath(project, 'conversations')}>Back to conversations</Link>
        </div>
        <nav aria-label="All views" className="toolbar" style={{ justifyContent: 'center' }}>
          {routes.filter((r) => r.nav).map((r) => (
            <Link key={r.path} to={projectPath(project, r.path.replace('/*', ''))}>{r.nav}</Link>
          ))}
        </nav>
      </div>
    </div>
  );
}
