/**
 * Starts an SFT job on a model: training data is a dataset (wandb-artifact:/// URL, e.g. one made from
 * chosen conversations — FromConversations fills it in) or a JSONL file (file:// URL or absolute
 * path). batch_size "auto" and the engine's default learning rate unless the user sets them; a rate
 * typed here is Loupe's own, so it goes as loupe_learning_rate (taken literally, not scaled).
 */
import { useState, type FormEvent } from 'react';
import { useOpMutation } from '../../api/query';
import { refreshTrainingLists, type KnownModel } from './trainingStore';

export function SftJobForm({ model, dataUrl, setDataUrl, onStarted }: { model: KnownModel; dataUrl: string; setDataUrl(u: string): void; onStarted(jobId: string): void }) {
  const [batch, setBatch] = useState('auto');
  const [lr, setLr] = useState('');
  const create = useOpMutation('training.createSftJob');
  const lrNum = lr.trim() === '' ? undefined : Number(lr);
  const batchVal: number | 'auto' = batch.trim() === 'auto' || batch.trim() === '' ? 'auto' : Number(batch);
  const badBatch = batchVal !== 'auto' && !(Number.isInteger(batchVal) && batchVal > 0);
  const badLr = lrNum !== undefined && !(lrNum > 0);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { model_id: model.id, training_data_url: dataUrl.trim(), config: { batch_size: batchVal, ...(lrNum !== undefined ? { loupe_learning_rate: lrNum } : {}) } },
      {
        onSuccess: ({ id }) => {
          refreshTrainingLists();
          onStarted(id);
        },
      },
    );
  };

  return (
    <form className="train-form" onSubmit={submit} data-testid="sft-form">
      <label className="wide">
        Training data (a dataset wandb-artifact:///entity/project/name:v0, or a JSONL file of {'{messages, tools}'} lines: file:// URL or absolute path)
        <input value={dataUrl} onChange={(e) => setDataUrl(e.target.value)} required placeholder="file:///path/to/data.jsonl" data-testid="sft-data-url" />
      </label>
      <label>Batch size <input value={batch} onChange={(e) => setBatch(e.target.value)} aria-invalid={badBatch} /></label>
      <label>Learning rate <input value={lr} onChange={(e) => setLr(e.target.value)} placeholder="default" aria-invalid={badLr} /></label>
      <button className="primary" type="submit" disabled={create.isPending || !dataUrl.trim() || badBatch || badLr} data-testid="start-sft">
        {create.isPending ? 'Starting…' : `Train ${model.name} (SFT)`}
      </button>
      {badBatch && <div className="error-text">Batch size must be a positive whole number or "auto".</div>}
      {badLr && <div className="error-text">Learning rate must be a positive number.</div>}
      {create.error && <div className="error-text" role="alert">{create.error.message}</div>}
    </form>
  );
}
