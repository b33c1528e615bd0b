/**
 * Training: models (listed from the server, create/open, checkpoints with metrics), jobs (listed
 * from the server, start SFT from a file or from chosen conversations, status, live events, loss
 * chart) and a playground to chat with any checkpoint. The selected model, job and tab live in the
 * URL (?model=&job=&tab=) so each view is a deep link; nothing else is kept in the browser.
 * `?dataset=<url>` (the Review page's "Train on it" link) fills the SFT form's training data.
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { CreateModelForm, Checkpoints, DeleteModel } from './ModelsPanel';
import { SftJobForm } from './SftJobForm';
import { FromConversations } from './FromConversations';
import { JobView } from './JobView';
import { Playground } from './Playground';
import { refreshTrainingLists, useJobList, useModelList } from './trainingStore';
import { useEvents } from '../../api/events';
import './training.css';

type Tab = 'models' | 'jobs' | 'playground';

export function TrainingPage() {
  const [params, setParams] = useSearchParams();
  const modelList = useModelList();
  const models = modelList.models;
  const tab = (params.get('tab') as Tab | null) ?? 'models';
  const modelId = params.get('model') ?? models[0]?.id ?? null;
  const model = models.find((m) => m.id === modelId) ?? null;
  // Jobs of the selected model; of every model when none is selected (e.g. all were deleted).
  const jobList = useJobList(model?.id ?? null);
  const jobs = jobList.jobs;
  const jobId = params.get('job') ?? jobs[0]?.id ?? null;
  // Status changes move jobs between states and add checkpoints: refetch the lists.
  useEvents((e) => { if (e.type === 'job.status') refreshTrainingLists(); });
  const linked = params.get('dataset');
  const [dataUrl, setDataUrl] = useState(linked ?? '');
  const [datasetNote, setDatasetNote] = useState<string | null>(linked ? 'The dataset you linked here' : null);

  const go = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) if (v === null) next.delete(k); else next.set(k, v);
    setParams(next);
  };

  return (
    <div className="page training-page" data-testid="training-page">
      <div className="page-head">
        <h1>Training</h1>
        <div className="tabs" role="tablist">
          {(['models', 'jobs', 'playground'] as Tab[]).map((t) => (
            <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => go({ tab: t })} data-testid={`tab-${t}`}>
              {t[0]!.toUpperCase() + t.slice(1)}
            </button>
          ))}
        </div>
      </div>

      {tab === 'models' && (
        <div className="train-grid">
          <section className="panel">
            <div className="panel-head"><strong>Create or open a model</strong></div>
            <CreateModelForm onCreated={(id) => go({ model: id, job: null })} />
            {modelList.error && <div className="error-text" role="alert">{modelList.error.message}</div>}
            <ul className="model-list" data-testid="model-list">
              {models.map((m) => (
                <li key={m.id} className={m.id === model?.id ? 'selected' : ''}>
                  <button className="link" onClick={() => go({ model: m.id, job: null })} data-testid="model-item" data-model-id={m.id}>
                    <strong>{m.name}</strong>{' '}
                    <span className="faint">
                      {m.entity}/{m.project} · {m.base_model}
                      {m.runtime_model !== m.base_model && <span data-testid="runtime-model" title="Loupe serves this base model name with a built-in model"> (runs {m.runtime_model})</span>} · step {m.latest_step ?? '—'}
                    </span>
                  </button>
                </li>
              ))}
              {!modelList.loading && models.length === 0 && <li className="muted">No models yet: create one above.</li>}
            </ul>
            {modelList.hasMore && <button onClick={modelList.more}>More models…</button>}
          </section>
          {model && (
            <section className="panel">
              <div className="panel-head">
                <strong>{model.name}</strong> <span className="mono faint">{model.id}</span>
                <button onClick={() => go({ tab: 'jobs' })}>Train…</button>
                <button onClick={() => go({ tab: 'playground' })}>Chat…</button>
                <DeleteModel model={model} onDeleted={() => go({ model: null, job: null })} />
              </div>
              <Checkpoints model={model} />
            </section>
          )}
        </div>
      )}

      {tab === 'jobs' && (
        <div className="train-grid">
          <section className="panel">
            {!model ? (
              <div className="muted">Create or open a model first (Models tab).</div>
            ) : (
              <>
                <div className="panel-head"><strong>New SFT job for {model.name}</strong></div>
                <SftJobForm model={model} dataUrl={dataUrl} setDataUrl={setDataUrl} onStarted={(id) => go({ job: id })} />
                <details className="from-convs-box">
                  <summary>Train on these conversations…</summary>
                  <FromConversations onDataset={(url, lines) => { setDataUrl(url); setDatasetNote(`${lines} examples ready`); }} />
                </details>
                {datasetNote && <div className="muted" data-testid="dataset-note">{datasetNote}: the data URL is filled in above.</div>}
              </>
            )}
            <div className="panel-head"><strong>{model ? `Jobs of ${model.name}` : 'Jobs'}</strong></div>
            {jobList.error && <div className="error-text" role="alert">{jobList.error.message}</div>}
            <ul className="job-list" data-testid="job-list">
              {jobs.map((j) => (
                <li key={j.id} className={j.id === jobId ? 'selected' : ''}>
                  <button className="link" onClick={() => go({ job: j.id })} data-testid="job-item" data-job-id={j.id}>
                    {j.kind.toUpperCase()} <span className="mono">{j.id.slice(0, 8)}</span>{' '}
                    <span className={`pill ${j.status === 'FAILED' || j.status === 'CANCELLED' ? 'error' : j.status === 'COMPLETED' ? 'ok' : ''}`}>{j.status}</span>{' '}
                    <span className="faint">{j.created_at.slice(0, 19).replace('T', ' ')}</span>
                  </button>
                </li>
              ))}
              {!jobList.loading && jobs.length === 0 && <li className="muted">No jobs yet.</li>}
            </ul>
            {jobList.hasMore && <button onClick={jobList.more}>More jobs…</button>}
          </section>
          {jobId ? <JobView jobId={jobId} /> : <section className="panel muted">Start a job to see its events and loss here.</section>}
        </div>
      )}

      {tab === 'playground' && <Playground models={models} initialModelId={model?.id} />}
    </div>
  );
}
