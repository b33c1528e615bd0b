/**
 * Trainer backends: the built-in trainer is always there; remote Loupe-compatible trainers are added
 * by name, base URL and API key (the key is sent once and never shown again), or removed. Also the
 * switch that records /v1/chat/completions calls as traces.
 */
import { useState } from 'react';
import { useOp, useOpMutation } from '../../api/query';
import { ErrorNote } from '../../components/ErrorNote';

export function TrainerBackends() {
  const settings = useOp('training.getSettings', {});
  const update = useOpMutation('training.updateSettings', ['training.getSettings']);
  const [form, setForm] = useState({ name: '', base_url: '', api_key: '' });
  const s = settings.data;
  return (
    <>
      <ErrorNote error={settings.error} what="settings" />
      <label>
        <input type="checkbox" checked={s?.record_completions ?? false} disabled={!s} onChange={(e) => update.mutate({ record_completions: e.target.checked })} /> Record chat completions as traces
      </label>
      <table className="plain" data-testid="backends">
        <thead><tr><th>Backend</th><th>Base URL</th><th /></tr></thead>
        <tbody>
          <tr><td>built-in</td><td className="faint">this machine (TF.js)</td><td /></tr>
          {s?.backends.map((b) => (
            <tr key={b.name}>
              <td>{b.name}</td>
              <td className="mono">{b.base_url}</td>
              <td><button onClick={() => update.mutate({ remove_backends: [b.name] })}>Remove</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ put_backends: [form] }, { onSuccess: () => setForm({ name: '', base_url: '', api_key: '' }) });
        }}
      >
        <input aria-label="Backend name" placeholder="name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} style={{ width: 120 }} />
        <input aria-label="Backend URL" placeholder="https://trainer.example/v1" value={form.base_url} onChange={(e) => setForm({ ...form, base_url: e.target.value })} style={{ width: 260 }} />
        <input aria-label="Backend API key" placeholder="API key" type="password" value={form.api_key} onChange={(e) => setForm({ ...form, api_key: e.target.value })} style={{ width: 160 }} />
        <button type="submit" disabled={!form.name || !form.base_url || !form.api_key || update.isPending}>Add backend</button>
      </form>
      {update.error && <div className="error-text" data-testid="backend-error">{update.error.message}</div>}
    </>
  );
}
