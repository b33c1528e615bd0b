/**
 * Replays of the project (issue 21): a form to start one — what to replay (a conversation, a failure
 * cluster, a dataset made from conversations), the target (an OpenAI-compatible endpoint or a Loupe
 * model's checkpoint), the project's scorers to compare with — with its estimate shown before it
 * runs; and the project's replays, newest first, each opening its report. Opened from a conversation
 * (`?conversation=<id>`), a cluster (`?cluster=<id>`), a dataset (`?dataset=<url>`), a trained model
 * (`?model_id=<id>`, from a finished job) or an earlier replay (`?from=<replay_id>`: the same
 * selection again — the Loop page's "next round") the form starts with that.
 */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { useOp, useOpMutation } from '../../api/query';
import type { OpInput } from '../../../../shared/contract/index';
import { ErrorNote } from '../../components/ErrorNote';
import { fmtCost, fmtTime, fmtTokens } from '../../components/format';
import { projectPath, useProject } from '../../hooks/project';
import './replays.css';

type Create = OpInput<'replays.create'>;
type What = 'conversation' | 'cluster' | 'dataset';

export function ReplaysPage() {
  const project = useProject();
  const list = useOp('replays.list', { project_id: project }, { refetchInterval: 2000 });
  return (
    <div className="page replays-page" data-testid="replays-page">
      <div className="page-head">
        <h1>Replays</h1>
        <Link to={projectPath(project, 'loop')}>The loop →</Link>
      </div>
      <p className="muted replay-intro">
        Send recorded turns again to another model — the recorded tool results answer its tool calls — and compare each answer with the original.
      </p>
      <StartFrom project={project} />
      <h2 className="replay-h2">Replays of {project}</h2>
      <ErrorNote error={list.error} what="the replays" />
      <table className="replay-list" data-testid="replay-list">
        <thead>
          <tr><th>Started</th><th>Label</th><th>Target</th><th>Status</th><th className="num">Turns</th><th className="num">Tokens</th><th className="num">Cost</th></tr>
        </thead>
        <tbody>
          {(list.data?.replays ?? []).map((r) => (
            <tr key={r.replay_id} data-testid="replay-row">
              <td><Link to={projectPath(project, 'replays', r.replay_id)}>{fmtTime(r.created_at, true)}</Link></td>
              <td>{r.label ?? <span className="faint">—</span>}</td>
              <td className="mono">{r.target.model}</td>
              <td><span className={`pill ${r.status === 'failed' ? 'error' : r.status === 'done' ? 'ok' : ''}`}>{r.status}</span></td>
              <td className="num">{r.totals.done + r.totals.failed} / {r.totals.items}</td>
              <td className="num">{fmtTokens(r.totals.input_tokens + r.totals.output_tokens)}</td>
              <td className="num">{fmtCost(r.totals.cost_usd)}</td>
            </tr>
          ))}
          {list.data && list.data.replays.length === 0 && (
            <tr><td colSpan={7} className="muted">No replay yet in this project.</td></tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

interface Initial {
  conversation: string;
  cluster: string;
  dataset: string;
  modelId: string;
  baseUrl: string;
  model: string;
  scorers: string[];
}

/** The form's starting values: from the link's parameters, and from an earlier replay (`?from=`) once it is read. */
function StartFrom({ project }: { project: string }) {
  const [params] = useSearchParams();
  const from = params.get('from');
  const prev = useOp('replays.get', from ? { replay_id: from } : null);
  if (from && !prev.data && !prev.error) return <div className="muted">Reading replay {from}…</div>;
  const r = prev.data;
  const convs = r ? [...new Set(r.items.map((i) => i.conversation_id).filter((c): c is string => !!c))] : [];
  const initial: Initial = {
    conversation: params.get('conversation') ?? (r && (r.selected_by.kind === 'conversation_ids' || r.selected_by.kind === 'trace_ids' || (r.selected_by.kind === 'selection' && !r.selected_by.cluster_id)) ? convs.join(', ') : ''),
    cluster: params.get('cluster') ?? r?.selected_by.cluster_id ?? '',
    dataset: params.get('dataset') ?? r?.selected_by.dataset ?? '',
    modelId: params.get('model_id') ?? r?.target.model_id ?? '',
    baseUrl: r?.target.base_url ?? '',
    model: r?.target.kind === 'endpoint' ? r.target.model : '',
    scorers: r?.scorers ?? [],
  };
  return (
    <>
      <ErrorNote error={prev.error} what={`replay ${from ?? ''}`} />
      <StartReplay key={from ?? ''} project={project} initial={initial} />
    </>
  );
}

function StartReplay({ project, initial }: { project: string; initial: Initial }) {
  const navigate = useNavigate();
  const [what, setWhat] = useState<What>(initial.cluster ? 'cluster' : initial.dataset ? 'dataset' : 'conversation');
  const [conversation, setConversation] = useState(initial.conversation);
  const [cluster, setCluster] = useState(initial.cluster);
  const [dataset, setDataset] = useState(initial.dataset);
  const [kind, setKind] = useState<'endpoint' | 'checkpoint'>(initial.modelId ? 'checkpoint' : 'endpoint');
  const [baseUrl, setBaseUrl] = useState(initial.baseUrl);
  const [model, setModel] = useState(initial.model);
  const [apiKey, setApiKey] = useState('');
  const [modelId, setModelId] = useState(initial.modelId);
  const [label, setLabel] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const [scorers, setScorers] = useState<Set<string>>(new Set(initial.scorers));
  const clusters = useOp('clusters.list', what === 'cluster' ? { project_id: project } : null);
  const scorerList = useOp('scorers.list', { project_id: project });
  const models = useOp('training.listModels', kind === 'checkpoint' ? { limit: 100 } : null);

  const selection = (): Pick<Create, 'conversation_ids' | 'selection' | 'dataset'> | null => {
    if (what === 'conversation') return conversation.trim() ? { conversation_ids: conversation.split(/[\s,]+/).filter(Boolean) } : null;
    if (what === 'cluster') return cluster ? { selection: { cluster_id: cluster } } : null;
    return dataset.trim() ? { dataset: dataset.trim() } : null;
  };
  const target = (): Create['target'] | null => {
    if (kind === 'checkpoint') return modelId.trim() ? { model_id: modelId.trim() } : null;
    if (!baseUrl.trim() || !model.trim()) return null;
    return { base_url: baseUrl.trim(), model: model.trim(), ...(apiKey ? { api_key: apiKey } : {}) };
  };
  const sel = selection();
  const tgt = target();
  const estimate = useOp('replays.estimate', sel && tgt ? { project_id: project, ...sel, target: tgt } : null, { retry: false });
  const start = useOpMutation('replays.create', ['replays.list']);
  const go = () => {
    if (!sel || !tgt) return;
    const budget = maxTokens ? { max_tokens: Number(maxTokens) } : undefined;
    start.mutate(
      { project_id: project, ...sel, target: tgt, ...(label ? { label } : {}), ...(budget ? { budget } : {}), ...(scorers.size ? { scorers: [...scorers] } : {}) },
      { onSuccess: (r) => void navigate(projectPath(project, 'replays', r.replay_id)) },
    );
  };
  const toggle = (id: string) => setScorers((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });

  return (
    <form className="replay-form" data-testid="replay-form" onSubmit={(e) => { e.preventDefault(); go(); }}>
      <fieldset>
        <legend>What to replay</legend>
        <div className="replay-choice" role="radiogroup">
          {(['conversation', 'cluster', 'dataset'] as const).map((w) => (
            <label key={w}><input type="radio" name="what" checked={what === w} onChange={() => setWhat(w)} /> {w === 'conversation' ? 'Conversations' : w === 'cluster' ? 'A failure cluster' : 'A dataset'}</label>
          ))}
        </div>
        {what === 'conversation' && <input aria-label="Conversation ids" placeholder="conversation ids, comma-separated" value={conversation} onChange={(e) => setConversation(e.target.value)} data-testid="replay-conversations" />}
        {what === 'cluster' && (
          <select aria-label="Cluster" value={cluster} onChange={(e) => setCluster(e.target.value)} data-testid="replay-cluster">
            <option value="">— choose a cluster —</option>
            {(clusters.data?.clusters ?? []).map((c) => <option key={c.cluster_id} value={c.cluster_id}>{c.title} ({c.count})</option>)}
          </select>
        )}
        {what === 'dataset' && <input aria-label="Dataset URL" placeholder="wandb-artifact:///local/<project>/<name>:v1" value={dataset} onChange={(e) => setDataset(e.target.value)} data-testid="replay-dataset" />}
      </fieldset>
      <fieldset>
        <legend>Target model</legend>
        <div className="replay-choice" role="radiogroup">
          <label><input type="radio" name="kind" checked={kind === 'endpoint'} onChange={() => setKind('endpoint')} /> OpenAI-compatible endpoint</label>
          <label><input type="radio" name="kind" checked={kind === 'checkpoint'} onChange={() => setKind('checkpoint')} /> A Loupe model (latest checkpoint)</label>
        </div>
        {kind === 'endpoint' ? (
          <div className="replay-fields">
            <input aria-label="Base URL" placeholder="https://api.openai.com/v1" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} data-testid="replay-base-url" />
            <input aria-label="Model" placeholder="model" value={model} onChange={(e) => setModel(e.target.value)} data-testid="replay-model" />
            <input aria-label="API key" type="password" placeholder="API key (kept in the secrets file for the run)" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" />
          </div>
        ) : (
          <select aria-label="Loupe model" value={modelId} onChange={(e) => setModelId(e.target.value)} data-testid="replay-model-id">
            <option value="">— choose a model (Training → Models) —</option>
            {modelId && models.data && !models.data.data.some((m) => m.id === modelId) && <option value={modelId}>{modelId}</option>}
            {(models.data?.data ?? []).map((m) => (
              <option key={m.id} value={m.id}>{m.entity}/{m.project}/{m.name} · {m.runtime_model}{m.latest_step !== null ? ` · step ${m.latest_step}` : ''}</option>
            ))}
          </select>
        )}
      </fieldset>
      <fieldset>
        <legend>Compare and bound</legend>
        <div className="replay-fields">
          <input aria-label="Label" placeholder="label (optional)" value={label} onChange={(e) => setLabel(e.target.value)} data-testid="replay-label" />
          <input aria-label="Token budget" placeholder="token budget (optional)" inputMode="numeric" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value.replace(/\D/g, ''))} />
        </div>
        <div className="replay-scorers" data-testid="replay-scorers">
          {(scorerList.data?.scorers ?? []).map((s) => (
            <label key={s.scorer_id}><input type="checkbox" checked={scorers.has(s.scorer_id)} onChange={() => toggle(s.scorer_id)} /> {s.name} <span className="faint">{s.kind}</span></label>
          ))}
          {scorerList.data && scorerList.data.scorers.length === 0 && <span className="faint">No scorer in this project (docs/evals.md): the report compares answers and tools.</span>}
        </div>
      </fieldset>
      <div className="replay-go">
        <span className="muted" data-testid="replay-estimate">
          {estimate.data
            ? `${estimate.data.turns} turn${estimate.data.turns === 1 ? '' : 's'}, ${estimate.data.model_calls} model calls, ~${fmtTokens(estimate.data.input_tokens + estimate.data.output_tokens)} tokens as recorded${estimate.data.cost_usd !== null ? `, ~${fmtCost(estimate.data.cost_usd)}` : ', price unknown'}`
            : estimate.error ? '' : sel && tgt ? 'Estimating…' : 'Choose what to replay and a target.'}
        </span>
        <button type="submit" className="primary" disabled={!sel || !tgt || start.isPending || !!estimate.error} data-testid="replay-start">
          {start.isPending ? 'Starting…' : 'Start replay'}
        </button>
      </div>
      <ErrorNote error={estimate.error ?? start.error} what="the replay" />
    </form>
  );
}
