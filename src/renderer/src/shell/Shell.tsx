/**
 * Shell — sidebar + the current page (<Outlet/>), global keys (? / t i g-c), the keyboard help
 * overlay, and remembering the URL's project as the last one used.
 */
import { useEffect, useRef, useState } from 'react';
import { Outlet, useNavigate } from 'react-router-dom';
import { Sidebar } from './Sidebar';
import { KeyboardHelp } from '../components/KeyboardHelp';
import { focusSearch, useEscapeBinding, useKey } from '../hooks/keys';
import { projectPath, useProject } from '../hooks/project';
import { resolveTheme, useUi } from '../stores/ui';
import { useAppActions } from '../components/EmptyState';

export function Shell() {
  const project = useProject();
  const setProject = useUi((s) => s.setProject);
  const [help, setHelp] = useState(false);
  const navigate = useNavigate();
  const { openImport } = useAppActions();
  const gPressed = useRef(0);

  useEffect(() => setProject(project), [project, setProject]);

  useEscapeBinding();
  useKey('?', () => setHelp((h) => !h));
  useKey('/', () => focusSearch());
  useKey('t', () => {
    const ui = useUi.getState();
    ui.setTheme(resolveTheme(ui.theme) === 'dark' ? 'light' : 'dark');
  });
  useKey('i', () => openImport());
  useKey('g', () => { gPressed.current = Date.now(); });
  useKey('c', () => {
    if (Date.now() - gPressed.current > 1000) return false;
    navigate(projectPath(project, 'conversations'));
  });

  return (
    <div className="shell">
      <Sidebar onHelp={() => setHelp(true)} />
      <main className="main">
        <Outlet />
      </main>
      <KeyboardHelp open={help} onClose={() => setHelp(false)} />
    </div>
  );
}
