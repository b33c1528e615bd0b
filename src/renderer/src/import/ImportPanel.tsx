/**
 * ImportPanel — per-file progress bars and the summary of each finished import (imported, replaced,
 * skipped with reasons, errors with line numbers). Props: jobs, demoError, onClose.
 */
import { Link } from 'react-router-dom';
import { spansText, type FileImport } from './run';
import { projectPath } from '../hooks/project';

export function ImportPanel(props: { jobs: FileImport[]; demoError: string | null; onClose(): void }) {
  const running = props.jobs.some((j) => j.state === 'queued' || j.state === 'running');
  const imported = props.jobs.reduce((n, j) => n + (j.report?.spans_imported ?? 0), 0);
  const replaced = props.jobs.reduce((n, j) => n + (j.report?.spans_replaced ?? 0), 0);
  const empty = props.jobs.filter((j) => j.warning).length;
  return (
    <div className="import-panel" data-testid="import-panel" role="status">
      <div className="toolbar">
        <strong style={{ marginRight: 'auto' }}>{running ? 'Importing…' : `Import finished: ${spansText({ spans_imported: imported, spans_replaced: replaced })}${empty ? ` (${empty} file${empty === 1 ? '' : 's'} without spans)` : ''}`}</strong>
        <button onClick={props.onClose} disabled={running} aria-label="Close import summary">Close</button>
      </div>
      {props.demoError && <div className="error-text">Demo data: {props.demoError}</div>}
      {props.jobs.map((j) => (
        <div className="file" key={j.id} data-testid="import-file" data-state={j.state} data-warning={j.warning ? 'true' : undefined}>
          <div className="toolbar">
            <span className="mono" style={{ marginRight: 'auto', overflow: 'hidden', textOverflow: 'ellipsis' }}>{j.name}</span>
            <span className="faint">{stateLabel(j)}</span>
          </div>
          <div className={`progress ${j.warning ? 'warning' : j.state === 'done' ? 'done' : j.state === 'failed' ? 'failed' : ''}`}>
            <div style={{ width: `${Math.round(j.fraction * 100)}%` }} data-testid="import-progress" />
          </div>
          {j.report && (
            <div className="muted" data-testid="import-summary">
              {spansText(j.report)}
              {j.report.spans_skipped > 0 && ` · ${j.report.spans_skipped} skipped`}
              {Object.keys(j.report.skipped_reasons).length > 0 &&
                ` (${Object.entries(j.report.skipped_reasons).map(([r, n]) => `${r}: ${n}`).join(', ')})`}
              {j.report.format && <span className="faint"> · {j.report.format}</span>}
              {j.report.projects.length > 0 && (
                <div>
                  into{' '}
                  {j.report.projects.map((p) => <Link key={p} to={projectPath(p, 'conversations')} className="pill">{p}</Link>)}
                </div>
              )}
            </div>
          )}
          {j.report && j.report.error_count > 0 && (
            <ul className="error-text" data-testid="import-errors" style={{ margin: 0, paddingLeft: 18 }}>
              {j.report.errors.map((e, i) => <li key={i}>{e.line !== null ? `line ${e.line}: ` : ''}{e.message}</li>)}
              {j.report.error_count > j.report.errors.length && <li>…and {j.report.error_count - j.report.errors.length} more</li>}
            </ul>
          )}
          {j.warning && <div className="warn-text" role="note" data-testid="import-warning">{j.name}: {j.warning}</div>}
          {j.error && <div className="error-text">{j.error}</div>}
        </div>
      ))}
    </div>
  );
}

function stateLabel(j: FileImport): string {
  if (j.state === 'queued') return 'waiting';
  const spans = j.spans ? ` · ${j.spans.toLocaleString('en-US')} spans` : '';
  if (j.state === 'running') return j.finishing ? `storing${spans}…` : `${Math.round(j.fraction * 100)}%${spans}`;
  if (j.state === 'failed') return 'failed';
  if (j.warning) return 'no spans';
  return 'done';
}
