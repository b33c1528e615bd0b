/**
 * Chat with any checkpoint of a known model through training.chatCompletions (the same operation
 * the OpenAI-compatible clients use). The conversation lives in component state only: it is a
 * scratchpad, and each completion is recorded as a span in the model's project by the server anyway.
 */
import { useState, type FormEvent } from 'react';
import { useOp, useOpMutation } from '../../api/query';
import { modelRef, type KnownModel } from './trainingStore';

type Msg = { role: 'user' | 'assistant' | 'system'; content: string; note?: string };

export function Playground({ models, initialModelId }: { models: KnownModel[]; initialModelId?: string }) {
  const [modelId, setModelId] = useState(initialModelId ?? models[0]?.id ?? '');
  const model = models.find((m) => m.id === modelId) ?? models[0];
  const [step, setStep] = useState<string>('latest');
  const [system, setSystem] = useState('');
  const [input, setInput] = useState('');
  const [maxTokens, setMaxTokens] = useState(48);
  const [temperature, setTemperature] = useState(0);
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const ckpts = useOp('training.listCheckpoints', model ? { model_id: model.id, order: 'desc', limit: 100 } : null);
  const complete = useOpMutation('training.chatCompletions');

  if (!model) return <div className="muted">Create or open a model first.</div>;

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text) return;
    const next: Msg[] = [...msgs, { role: 'user', content: text }];
    setMsgs(next);
    setInput('');
    const messages = (system.trim() ? [{ role: 'system' as const, content: system.trim() }, ...next] : next).map(({ role, content }) => ({ role, content }));
    complete.mutate(
      { model: modelRef(model, step === 'latest' ? null : Number(step)), messages, max_tokens: maxTokens, temperature },
      {
        onSuccess: (res) => {
          const r = res as { choices?: { message?: { content?: string | null }; finish_reason?: string }[]; usage?: { completion_tokens?: number } };
          const choice = r.choices?.[0];
          const note = `${r.usage?.completion_tokens ?? '?'} tokens · ${choice?.finish_reason ?? '?'}`;
          setMsgs((m) => [...m, { role: 'assistant', content: choice?.message?.content ?? '', note }]);
        },
      },
    );
  };

  return (
    <section className="panel playground" data-testid="playground">
      <div className="toolbar">
        <label>
          Model{' '}
          <select value={model.id} onChange={(e) => { setModelId(e.target.value); setStep('latest'); }} data-testid="pg-model">
            {models.map((m) => <option key={m.id} value={m.id}>{m.entity}/{m.project}/{m.name}</option>)}
          </select>
        </label>
        <label>
          Checkpoint{' '}
          <select value={step} onChange={(e) => setStep(e.target.value)} data-testid="pg-step">
            <option value="latest">latest</option>
            {(ckpts.data?.data ?? []).map((c) => <option key={c.id} value={String(c.step)}>step {c.step}</option>)}
          </select>
        </label>
        <label>Max tokens <input type="number" min={1} max={512} value={maxTokens} onChange={(e) => setMaxTokens(Number(e.target.value) || 1)} style={{ width: 70 }} /></label>
        <label>Temperature <input type="number" min={0} max={2} step={0.1} value={temperature} onChange={(e) => setTemperature(Number(e.target.value))} style={{ width: 60 }} /></label>
        <button type="button" onClick={() => setMsgs([])} disabled={!msgs.length}>Clear</button>
      </div>
      <textarea className="pg-system" placeholder="System instructions (optional)" value={system} onChange={(e) => setSystem(e.target.value)} rows={2} />
      <div className="pg-messages" data-testid="pg-messages">
        {msgs.map((m, i) => (
          <div key={i} className={`pg-msg pg-${m.role}`} data-testid={`pg-${m.role}`}>
            <span className="faint">{m.role}{m.note ? ` · ${m.note}` : ''}</span>
            {/* An untrained byte model often answers whitespace or control bytes: show them escaped, never as nothing. */}
            <div className="pg-text">{m.content.trim() ? m.content : <em className="muted">{m.content ? JSON.stringify(m.content) : '(empty answer)'}</em>}</div>
          </div>
        ))}
        {complete.isPending && <div className="muted">Generating…</div>}
        {complete.error && <div className="error-text" role="alert">{complete.error.message}</div>}
      </div>
      <form className="pg-input" onSubmit={send}>
        <input value={input} onChange={(e) => setInput(e.target.value)} placeholder={`Message ${model.name}`} data-testid="pg-input" />
        <button className="primary" type="submit" disabled={complete.isPending || !input.trim()} data-testid="pg-send">Send</button>
      </form>
    </section>
  );
}
