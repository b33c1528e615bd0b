/**
 * ImportDialog — asked on every drop (or file pick): which project the files go to. Offers the
 * projects in the store, a new project name, or "as the files say" (a file's `svc.project_id`
 * resource attribute, else local/default). The last choice is remembered (UI store) and preselected,
 * so repeated drops into one project are one Enter.
 * Props: files, onImport(project | null), onCancel.
 */
import { useState } from 'react';
import { useOp } from '../api/query';
import { useEscape } from '../hooks/keys';
import { useUi } from '../stores/ui';

const FROM_FILES = '';
const NEW = '\u0000new';

export function ImportDialog(props: { files: File[]; onImport(project: string | null): void; onCancel(): void }) {
  const remembered = useUi((s) => s.importProject);
  const setRemembered = useUi((s) => s.setImportProject);
  const projects = useOp('system.projects', {}).data?.projects.map((p) => p.project_id) ?? [];
  const known = remembered === null || projects.includes(remembered);
  const [choice, setChoice] = useState<string>(remembered === null ? FROM_FILES : known ? remembered : NEW);
  const [name, setName] = useState(remembered !== null && !known ? remembered : '');
  useEscape(props.onCancel);
  const target = choice === NEW ? name.trim() : choice === FROM_FILES ? null : choice;
  const valid = choice !== NEW || name.trim().length > 0;
  const submit = () => {
    if (!valid) return;
    setRemembered(target);
    props.onImport(target);
  };
  const size = props.files.reduce((n, f) => n + f.size, 0);
  return (
    <div className="overlay" onClick={props.onCancel}>
      <form
        className="dialog import-dialog"
        role="dialog"
        aria-label="Import files"
        data-testid="import-dialog"
        onClick={(e) => e.stopPropagation()}
        onSubmit={(e) => { e.preventDefault(); submit(); }}
      >
        <h2>Import {props.files.length} file{props.files.length === 1 ? '' : 's'}</h2>
        <ul className="import-files mono">
          {props.files.slice(0, 8).map((f, i) => <li key={i}>{f.name} <span className="faint">({fmtBytes(f.size)})</span></li>)}
          {props.files.length > 8 && <li className="faint">…and {props.files.length - 8} more ({fmtBytes(size)} in all)</li>}
        </ul>
        <label className="field">
          <span>Into project</span>
          <select value={choice} onChange={(e) => setChoice(e.target.value)} aria-label="Target project" data-testid="import-project">
            <option value={FROM_FILES}>As the files say (svc.project_id, else local/default)</option>
            {projects.map((p) => <option key={p} value={p}>{p}</option>)}
            <option value={NEW}>New project…</option>
          </select>
        </label>
        {choice === NEW && (
          <label className="field">
            <span>New project name</span>
            <input autoFocus value={name} onChange={(e) => setName(e.target.value)} placeholder="acme/support" aria-label="New project name" data-testid="import-new-project" />
          </label>
        )}
        <div className="toolbar dialog-actions">
          <button type="submit" className="primary" disabled={!valid} autoFocus={choice !== NEW} data-testid="import-confirm">Import</button>
          <button type="button" onClick={props.onCancel}>Cancel</button>
        </div>
      </form>
    </div>
  );
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
