/**
 * Shell — sidebar + the current page (<Outlet/>, inside an error boundary that keeps the shell when a
 * view fails and brings the view back when the server returns), global keys (? / t i g-c), the desktop menu's
 * commands (ui.command events), the keyboard help overlay, and remembering the URL's project as the
 * last one used.
 */
import { Suspense, useEffect, useRef, useState } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { Sidebar } from './Sidebar';
import { KeyboardHelp } from '../components/KeyboardHelp';
import { focusSearch, useEscapeBinding, useKey } from '../hooks/keys';
import { projectPath, useProject } from '../hooks/project';
import { useUi } from '../stores/ui';
import { toggleTheme, useUiCommands } from './uiCommands';
import { useAppActions } from '../components/EmptyState';
import { OfflineBanner } from './OfflineBanner';
import { ComparePickBar } from './ComparePick';
import { ViewBoundary } from './ViewBoundary';
import { SignInNote } from './SignInNote';

export function Shell() {
  const project = useProject();
  const setProject = useUi((s) => s.setProject);
  const [help, setHelp] = useState(false);
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { openImport, loadDemo } = useAppActions();
  const gPressed = useRef(0);

  useEffect(() => setProject(project), [project, setProject]);

  useEscapeBinding();
  useKey('?', () => setHelp((h) => !h));
  useKey('/', () => focusSearch());
  useKey('t', () => toggleTheme());
  useUiCommands({ openImport, loadDemo });
  useKey('i', () => openImport());
  useKey('g', () => { gPressed.current = Date.now(); });
  useKey('c', () => {
    if (Date.now() - gPressed.current > 1000) return false;
    void navigate(projectPath(project, 'conversations'));
  });

  return (
    <div className="shell">
      <Sidebar onHelp={() => setHelp(true)} />
      <main className="main">
        <OfflineBanner />
        <SignInNote />
        <ComparePickBar />
        <ViewBoundary resetKey={pathname}>
          <Suspense fallback={<div className="page faint" data-testid="page-loading"><span><span className="spinner" aria-hidden /> Loading…</span></div>}>
            <Outlet />
          </Suspense>
        </ViewBoundary>
      </main>
      <KeyboardHelp open={help} onClose={() => setHelp(false)} />
    </div>
  );
}
