/**
 * EmptyState — shown where a view has no data yet.
 * Props:
 *  - title: headline ("No conversations yet")
 *  - children?: explanation under the title
 *  - actions?: default true; shows "Load demo data" and "Import files", wired through AppActions
 *    (provided by the shell) so every page offers the same two ways in.
 */
import { createContext, useContext, type ReactNode } from 'react';

export interface AppActions {
  loadDemo(): void;
  openImport(): void;
  demoLoading: boolean;
}

export const AppActionsContext = createContext<AppActions>({ loadDemo: () => {}, openImport: () => {}, demoLoading: false });
export const useAppActions = () => useContext(AppActionsContext);

export function EmptyState(props: { title: string; children?: ReactNode; actions?: boolean }) {
  const { loadDemo, openImport, demoLoading } = useAppActions();
  return (
    <div className="empty" data-testid="empty-state">
      <h2>{props.title}</h2>
      {props.children && <div className="muted">{props.children}</div>}
      {props.actions !== false && (
        <>
          <div className="actions">
            <button className="primary" onClick={loadDemo} disabled={demoLoading}>
              {demoLoading ? 'Loading demo data…' : 'Load demo data'}
            </button>
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
