/**
 * Settings: the server's port, the data folder and database size, coding agents' MCP configuration, the training key (reveal and
 * copy), remote trainer backends and completion recording ('training.getSettings/updateSettings'),
 * and display preferences (UI store, persisted locally).
 */
import { useEffect, useState } from 'react';
import { useOp, useOpMutation } from '../../api/query';
import { trainingKey } from '../../api/client';
import { resolveTheme, useUi, type ThemePref } from '../../stores/ui';
import { TrainerBackends } from './TrainerBackends';
import { CodingAgents } from './CodingAgents';
import { ErrorNote } from '../../components/ErrorNote';
import { useResetOnChange } from '../../hooks/reset';
import { PORT_SETTING as PORT_KEY, STORE_SETTING as STORE_KEY } from '../../../../shared/settings';
const NUM = { textAlign: 'right' } as const;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function SettingsPage() {
  const settings = useOp('system.getSettings', {});
  const storage = useOp('system.storage', {});
  const save = useOpMutation('system.setSettings', ['system.getSettings']);
  const s = settings.data;
  const [port, setPort] = useState(() => s?.values[PORT_KEY] ?? '');
  useResetOnChange([s], () => { if (s) setPort(s.values[PORT_KEY] ?? ''); });
  const portError = port !== '' && !(/^\d+$/.test(port) && Number(port) > 0 && Number(port) < 65536) ? 'A port is a whole number from 1 to 65535' : null;
  return (
    <div className="page settings" data-testid="settings-page">
      <div className="page-head"><h1>Settings</h1></div>
      <ErrorNote error={settings.error} what="settings" />
      <section className="panel settings-section">
        <h2>Server</h2>
        <dl className="kv">
          <dt>Listening on</dt><dd data-testid="current-port">{location.port ? `127.0.0.1:${location.port}` : 'IPC (desktop window)'}</dd>
          <dt>OTLP endpoint</dt><dd>{location.port ? `${location.origin}/v1/traces` : '–'}</dd>
        </dl>
        <label className="field">
          Preferred port at next start
          <span className="toolbar">
            <input aria-label="Preferred port" inputMode="numeric" placeholder="4318" value={port} onChange={(e) => setPort(e.target.value.trim())} style={{ width: 100 }} />
            <button disabled={!!portError || !s || port === (s.values[PORT_KEY] ?? '')} onClick={() => save.mutate({ values: { [PORT_KEY]: port === '' ? null : port } })}>Save</button>
            {portError && <span className="error-text">{portError}</span>}
            {save.isSuccess && !portError && <span className="muted">Saved</span>}
          </span>
          <ErrorNote error={save.error} testId="port-error" />
          <span className="faint">--port and LOUPE_PORT take precedence; when the port is taken a free one is used.</span>
        </label>
      </section>
      <section className="panel settings-section">
        <h2>Data</h2>
        <dl className="kv">
          <dt>Data folder</dt><dd data-testid="data-dir">{s?.data_dir ?? '…'}</dd>
          {s?.trace_store.adapter === 'clickhouse' ? (
            <>
              <dt>Spans</dt><dd data-testid="trace-store">ClickHouse {s.trace_store.location} ({mib(s.database_bytes)})</dd>
              <dt>Feedback, settings, training</dt><dd>{s.database_file}</dd>
            </>
          ) : (
            <>
              <dt>Database</dt><dd data-testid="trace-store">{s ? `${s.database_file} (${mib(s.database_bytes)})` : '…'}</dd>
            </>
          )}
        </dl>
        <span className="faint">Choose another folder with --data-dir or LOUPE_DATA_DIR when starting Loupe.</span>
        {s && <StoreAtNextStart saved={s.values[STORE_KEY] ?? ''} />}
        {storage.data && storage.data.projects.length > 0 && (
          <table className="plain" data-testid="storage-per-project">
            <thead><tr><th>Project</th><th style={NUM}>Spans</th><th style={NUM}>Size (estimate)</th></tr></thead>
            <tbody>
              {storage.data.projects.map((p) => (
                <tr key={p.project_id}><td className="mono">{p.project_id}</td><td style={NUM}>{p.span_count.toLocaleString()}</td><td style={NUM}>{mib(p.bytes)}</td></tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel settings-section">
        <h2>Coding agents (MCP)</h2>
        <CodingAgents />
      </section>
      <section className="panel settings-section">
        <h2>Training key</h2>
        <TrainingKey file={s?.training_key_file} />
      </section>
      <section className="panel settings-section">
        <h2>Trainer</h2>
        <TrainerBackends />
      </section>
      <section className="panel settings-section">
        <h2>Display</h2>
        <DisplayPrefs />
      </section>
    </div>
  );
}

/** The trace store of the next start: a clickhouse:// URL (shared by a team) or this folder's file. */
function StoreAtNextStart({ saved }: { saved: string }) {
  const save = useOpMutation('system.setSettings', ['system.getSettings']);
  const [text, setText] = useState('');
  return (
    <label className="field">
      Spans at next start
      <span className="muted" data-testid="store-next">{saved || 'this folder’s SQLite file'}</span>
      <span className="toolbar">
        <input aria-label="Store URL" placeholder="clickhouse://user:password@host:8123/database, or sqlite" value={text} onChange={(e) => setText(e.target.value)} style={{ width: 420 }} autoComplete="off" spellCheck={false} />
        <button disabled={text.trim() === ''} onClick={() => save.mutate({ values: { [STORE_KEY]: text.trim() } }, { onSuccess: () => setText('') })}>Save</button>
        {saved && <button onClick={() => save.mutate({ values: { [STORE_KEY]: null } })}>Use this folder’s file</button>}
      </span>
      <ErrorNote error={save.error} testId="store-error" />
      <span className="faint">--store and LOUPE_STORE take precedence. Feedback, settings and training stay in this folder either way.</span>
    </label>
  );
}

function TrainingKey({ file }: { file?: string }) {
  const [key, setKey] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => { void trainingKey().then(setKey); }, []);
  return (
    <>
      <span className="muted">Send it as <code>Authorization: Bearer &lt;key&gt;</code> to the training API (/v1/…).</span>
      {key ? (
        <span className="toolbar">
          <code data-testid="training-key" className="secret">{shown ? key : '•'.repeat(Math.min(32, key.length))}</code>
          <button onClick={() => setShown((v) => !v)}>{shown ? 'Hide' : 'Reveal'}</button>
          <button onClick={() => void navigator.clipboard?.writeText(key).then(() => setCopied(true), () => setCopied(false))}>{copied ? 'Copied' : 'Copy'}</button>
        </span>
      ) : (
        <span className="muted">Stored in {file ?? 'the data folder'}.</span>
      )}
      {file && <span className="faint">Key file: {file}</span>}
    </>
  );
}

function DisplayPrefs() {
  const { theme, setTheme, display, setDisplay } = useUi();
  return (
    <div className="prefs">
      <label className="field">
        Theme
        <select aria-label="Theme" value={theme} onChange={(e) => setTheme(e.target.value as ThemePref)}>
          <option value="system">Follow the system ({resolveTheme('system')})</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label><input type="checkbox" checked={display.showCosts} onChange={(e) => setDisplay({ showCosts: e.target.checked })} /> Show costs in lists</label>
      <label><input type="checkbox" checked={display.relativeTimes} onChange={(e) => setDisplay({ relativeTimes: e.target.checked })} /> Relative times ("3 h ago")</label>
      <label><input type="checkbox" checked={display.expandToolResults} onChange={(e) => setDisplay({ expandToolResults: e.target.checked })} /> Expand tool results in chats</label>
    </div>
  );
}
