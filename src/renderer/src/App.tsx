/**
 * The app: react-query provider, live refresh from push events, theme, app-wide actions (demo data,
 * import) and the router. Routes live under `/p/:project/` so each view has a deep link.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { HashRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { routes } from './routes';
import { queryClient } from './api/query';
import { useLiveRefresh } from './api/events';
import { Shell } from './shell/Shell';
import { useApplyTheme } from './shell/useTheme';
import { ImportProvider } from './import/ImportProvider';
import { DEFAULT_PROJECT, projectPath } from './hooks/project';
import { useUi } from './stores/ui';
import { NotFoundPage } from './pages/notfound/NotFoundPage';

export function App() {
  useApplyTheme();
  useLiveRefresh();
  return (
    <QueryClientProvider client={queryClient}>
      <HashRouter>
        <ImportProvider>
          <Routes>
            <Route path="/p/:project" element={<Shell />}>
              <Route index element={<Navigate to="conversations" replace />} />
              {routes.map((r) => <Route key={r.path} path={r.path} element={r.element} />)}
              <Route path="*" element={<NotFoundPage />} />
            </Route>
            <Route path="*" element={<ToProject />} />
          </Routes>
        </ImportProvider>
      </HashRouter>
    </QueryClientProvider>
  );
}

/** First path segments of the views (`conversations`, `traces`, `training`…). */
const VIEW_NAMES = new Set(routes.map((r) => r.path.split('/')[0]!));

/**
 * `#/` or a bare `#/agents` → the same view inside the last used project. Anything else is not a
 * view: the not-found page (redirecting it into a project would match nothing there either, and loop).
 */
function ToProject() {
  const { pathname } = useLocation();
  const project = useUi((s) => s.project) ?? DEFAULT_PROJECT;
  const rest = pathname.replace(/^\/+/, '');
  if (rest && !VIEW_NAMES.has(rest.split('/')[0]!)) return <NotFoundPage />;
  return <Navigate to={`${projectPath(project)}/${rest || 'conversations'}`} replace />;
}
