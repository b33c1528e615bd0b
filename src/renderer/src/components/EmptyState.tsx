/**
 * EmptyState — shown where a view has no data yet.
 * Props:
 *  - title: headline ("No conversations yet")
 *  - children?: explanation under the title
 *  - actions?: default true; shows "Load demo data" and "Import files", wired through AppActions
 *    (provided by the shell) so every page offers the same two ways in. In a project that already
 *    has spans the demo is not offered (the view is empty for its own reason, which children say):
 *    the note names the project's span count instead.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useProject, useProjectSpanCount } from '../hooks/project';

export interface AppActions {
  loadDemo(): void;
  openImport(): void;
  demoLoading: boolean;
}

export const AppActionsContext = createContext<AppActions>({ loadDemo: () => {}, openImport: () => {}, demoLoading: false });
export const useAppActions = () => useContext(AppActionsContext);

export function EmptyState(props: { title: string; children?: ReactNode; actions?: boolean }) {
  const { loadDemo, openImport, demoLoading } = useAppActions();
  const project = useProject();
  const spans = useProjectSpanCount(project);
  const hasData = spans !== null && spans > 0;
  return (
    <div className="empty" data-testid="empty-state">
      <h2>{props.title}</h2>
      {props.children && <div className="muted">{props.children}</div>}
      {props.actions !== false && (
        <>
          {hasData && (
            <div className="muted" data-testid="empty-has-data">
              Project <strong>{project}</strong> holds {spans.toLocaleString('en-US')} span{spans === 1 ? '' : 's'}; none of them show here.
            </div>
          )}
          <div className="actions">
            {!hasData && (
              <button className="primary" onClick={loadDemo} disabled={demoLoading}>
                {demoLoading ? 'Loading demo data…' : 'Load demo data'}
              </button>
            )}
            <button onClick={openImport}>Import files</button>
          </div>
          <div className="faint">
            Or drop OTLP JSON / JSONL / protobuf files anywhere on this window, or point an OpenTelemetry exporter at{' '}
            <code>{location.origin.startsWith('http') ? location.origin : 'http://127.0.0.1:4318'}/v1/traces</code>.
          </div>
        </>
      )}
    </div>
  );
}
