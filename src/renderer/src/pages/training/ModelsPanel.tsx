/**
 * Models: open or create one (training.createModel with return_existing, so opening an existing
 * model by name never duplicates it), deleting one, and the selected model's checkpoints with their
 * metrics (training.listCheckpoints, newest first). The list itself comes from training.listModels.
 */
import { useState, type FormEvent } from 'react';
import { useOp, useOpMutation } from '../../api/query';
import { refreshTrainingLists, type KnownModel } from './trainingStore';

// The built-in base models, the default first; any other name runs on the fallback (Settings; the default unless changed).
const BASE_MODELS = ['loupe-tiny-bytes-2k', 'loupe-tiny-bytes', 'loupe-test-bytes'];

export function CreateModelForm({ onCreated }: { onCreated(modelId: string): void }) {
  const [entity, setEntity] = useState('local');
  const [project, setProject] = useState('training');
  const [name, setName] = useState('');
  const [base, setBase] = useState(BASE_MODELS[0]!);
  const create = useOpMutation('training.createModel');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { entity, project, name: name.trim(), base_model: base, return_existing: true },
      {
        onSuccess: (m) => {
          refreshTrainingLists();
          onCreated(m.id);
          setName('');
        },
      },
    );
  };

  return (
    <form className="train-form" onSubmit={submit} data-testid="create-model-form">
      <label>Entity <input value={entity} onChange={(e) => setEntity(e.target.value)} required /></label>
      <label>Project <input value={project} onChange={(e) => setProject(e.target.value)} required /></label>
      <label>Name <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="my-model" data-testid="model-name" /></label>
      <label>
        Base model
        <input list="loupe-base-models" value={base} onChange={(e) => setBase(e.target.value)} required data-testid="model-base" />
        <datalist id="loupe-base-models">{BASE_MODELS.map((b) => <option key={b} value={b} />)}</datalist>
      </label>
      <button className="primary" type="submit" disabled={create.isPending || !name.trim()}>
        {create.isPending ? 'Creating…' : 'Create or open model'}
      </button>
      {create.error && <div className="error-text" role="alert">{create.error.message}</div>}
    </form>
  );
}

/** Deletes the model on the server (checkpoints, weight files; queued jobs fail); the list refreshes. */
export function DeleteModel({ model, onDeleted }: { model: KnownModel; onDeleted(): void }) {
  const del = useOpMutation('training.deleteModel');
  return (
    <>
      <button
        className="danger"
        disabled={del.isPending}
        onClick={() => {
          if (!window.confirm(`Delete ${model.name}, all its checkpoints and weight files?`)) return;
          del.mutate({ model_id: model.id }, { onSuccess: () => { refreshTrainingLists(); onDeleted(); } });
        }}
      >
        {del.isPending ? 'Deleting…' : 'Delete model'}
      </button>
      {del.error && <span className="error-text" role="alert">{del.error.message}</span>}
    </>
  );
}

export function Checkpoints({ model }: { model: KnownModel }) {
  const q = useOp('training.listCheckpoints', { model_id: model.id, order: 'desc', limit: 100 });
  if (q.error) return <div className="error-text" role="alert">{q.error.message}</div>;
  if (!q.data) return <div className="muted">Loading checkpoints…</div>;
  const metricKeys = [...new Set(q.data.data.flatMap((c) => Object.keys(c.metrics)))].sort().slice(0, 6);
  return (
    <table className="train-table" data-testid="checkpoints">
      <thead>
        <tr><th>Step</th>{metricKeys.map((k) => <th key={k} className="num">{k}</th>)}</tr>
      </thead>
      <tbody>
        {q.data.data.map((c) => (
          <tr key={c.id} data-testid="checkpoint-row" data-step={c.step}>
            <td>step {c.step}</td>
            {metricKeys.map((k) => <td key={k} className="num">{fmtMetric(c.metrics[k])}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function fmtMetric(v: number | undefined): string {
  if (v === undefined || v === null) return '—';
  return Math.abs(v) >= 100 || Number.isInteger(v) ? String(Math.round(v * 100) / 100) : v.toPrecision(4);
}
