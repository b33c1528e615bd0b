/**
 * Opens a job started elsewhere (a training script, another window) by its id: the API cannot list
 * jobs, so the id is checked with training.getJob and then remembered like the page's own jobs.
 */
import { useState, type FormEvent } from 'react';
import { call } from '../../api/client';
import { useTrainingUi } from './trainingStore';

export function OpenJob({ onOpened }: { onOpened(jobId: string, modelId: string): void }) {
  const [id, setId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const addJob = useTrainingUi((s) => s.addJob);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const job = await call('training.getJob', { job_id: id.trim() });
      addJob({ id: job.id, model_id: job.model_id, kind: job.kind, created_at: job.created_at });
      onOpened(job.id, job.model_id);
      setId('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="train-form" onSubmit={(e) => void submit(e)}>
      <input value={id} onChange={(e) => setId(e.target.value)} placeholder="job id" aria-label="Job id" />
      <button type="submit" disabled={busy || !id.trim()}>Open job</button>
      {error && <div className="error-text" role="alert">{error}</div>}
    </form>
  );
}
