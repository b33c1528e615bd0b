/**
 * Sidebar — navigation built from routes.tsx, the project switcher ('system.projects'), the OTLP
 * spool's status line and the theme toggle. Links keep the current project in the URL.
 */
import { Icon } from '../components/Icon';
import { NavLink, useLocation, useNavigate } from 'react-router-dom';
import { routes } from '../routes';
import { useOp } from '../api/query';
import { projectPath, useProject } from '../hooks/project';
import { resolveTheme, useUi } from '../stores/ui';
import { useAppActions } from '../components/EmptyState';
import { SpoolStatus } from './SpoolStatus';

export function Sidebar(props: { onHelp(): void }) {
  const project = useProject();
  return (
    <aside className="sidebar">
      <div className="brand"><Icon name="loupe" size={16} /> Loupe</div>
      <div className="section-label">Project</div>
      <ProjectSwitcher project={project} />
      <div className="section-label">Views</div>
      <nav aria-label="Views">
        {routes.filter((r) => r.nav).map((r) => (
          <NavLink key={r.path} to={projectPath(project, r.path.replace('/*', ''))}>{r.nav}</NavLink>
        ))}
      </nav>
      <div className="spacer" />
      <SpoolStatus />
      <SidebarFoot onHelp={props.onHelp} />
    </aside>
  );
}

function ProjectSwitcher({ project }: { project: string }) {
  const { data } = useOp('system.projects', {});
  const navigate = useNavigate();
  const location = useLocation();
  const setProject = useUi((s) => s.setProject);
  const projects = data?.projects ?? [];
  const ids = projects.some((p) => p.project_id === project) ? projects.map((p) => p.project_id) : [project, ...projects.map((p) => p.project_id)];
  const current = projects.find((p) => p.project_id === project);
  const count = current ? `${current.span_count.toLocaleString('en-US')} span${current.span_count === 1 ? '' : 's'}` : '';
  // A native select cuts its label to the sidebar's width; the whole name is drawn (wrapped) beside
  // the span count, and the transparent select on top still opens the list and takes the keyboard.
  return (
    <div className="project-switcher" title={count ? `${project} (${count})` : project}>
      <div className="project-label" aria-hidden="true">
        <span className="name" data-testid="project-label">{project}</span>
        {count && <span className="count faint">{count}</span>}
      </div>
      <select
        aria-label="Project"
        data-testid="project-switcher"
        value={project}
        onChange={(e) => {
          const next = e.target.value;
          setProject(next);
          // Stay on the same kind of view (list level, not a specific conversation of the old project).
          const view = location.pathname.split('/')[3] ?? 'conversations';
          void navigate(projectPath(next, view));
        }}
      >
        {ids.map((id) => {
          const p = projects.find((x) => x.project_id === id);
          return <option key={id} value={id}>{id}{p ? ` (${p.span_count.toLocaleString('en-US')} spans)` : ''}</option>;
        })}
      </select>
    </div>
  );
}

function SidebarFoot({ onHelp }: { onHelp(): void }) {
  const theme = useUi((s) => s.theme);
  const setTheme = useUi((s) => s.setTheme);
  const { openImport } = useAppActions();
  const dark = resolveTheme(theme) === 'dark';
  return (
    <div className="foot">
      <button onClick={openImport} data-testid="import-button">Import…</button>
      <button onClick={() => setTheme(dark ? 'light' : 'dark')} aria-label="Toggle theme" data-testid="theme-toggle" title="Toggle theme (t)">
        {dark ? '☀' : '☾'}
      </button>
      <button onClick={onHelp} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">?</button>
    </div>
  );
}
