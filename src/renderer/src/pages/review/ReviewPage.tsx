/**
 * Review queue (issue 20 item 3): the turns of a selection — every turn, or those carrying a score
 * condition (`?score=`, e.g. a cluster's filter) — walked with the keyboard: read the turn, label it
 * (u / d thumbs, 1–9 a label of the project's set, n a note), correct the answer (c, the correction is
 * kept beside the original and shown as a word diff; Ctrl+Enter saves), skip (s), next / back (j / k).
 * A label is one `human` score named `review` per reviewer and turn (value: thumbs, label, explanation:
 * the note, correction), so two people on one ClickHouse store see each other's labels; re-labelling
 * replaces. Where the walk is, is kept per selection (a reload resumes). "Make SFT dataset" writes, in
 * one step, every corrected turn (the reviewer's answer in place of the original) and every turn
 * labelled good as an SFT dataset version (datasets.fromReviews) a training job takes as is.
 */
import { diffWordsWithSpace } from 'diff';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useOp, useOpMutation } from '../../api/query';
import { TurnView } from '../../chat/TurnView';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNote } from '../../components/ErrorNote';
import { useKey } from '../../hooks/keys';
import { projectPath, useProject } from '../../hooks/project';
import { scoreCondFromParam } from '../conversations/listQuery';
import { ScoreFilter } from '../../scores/ScoreFilter';
import type { Score } from '../../scores/format';
import type { Turn } from '../../api/views';
import { DEFAULT_LABELS, useReviewUi } from './reviewStore';
import './review.css';

export const REVIEW = 'review';
/** Turns a queue holds at most (one grouped spans read). */
const MAX_TURNS = 1000;

export function ReviewPage() {
  const project = useProject();
  const [params, setParams] = useSearchParams();
  const cond = scoreCondFromParam(params.get('score'));
  const selKey = `${project}|${params.get('score') ?? ''}`;
  const { reviewer, setReviewer, positions, setPosition } = useReviewUi();
  const labels = useReviewUi((s) => s.labels[project]) ?? DEFAULT_LABELS;
  const setLabels = useReviewUi((s) => s.setLabels);

  // The queue: the selection's turns (trace ids), one grouped read, in a stable order.
  const q = useOp('spans.query', {
    project_id: project,
    group_by: [{ source: 'field', key: 'conversation_id', alias: 'conversation_id' }, { source: 'field', key: 'trace_id', alias: 'trace_id' }],
    limit: MAX_TURNS,
    ...(cond ? { query: { $expr: { $score: cond } } } : {}),
  });
  const queue = useMemo(() => (q.data?.groups ?? []).map((g) => String(g.group_keys.trace_id)).sort(), [q.data]);
  const at = Math.min(positions[selKey] ?? 0, Math.max(0, queue.length - 1));
  const go = (i: number) => setPosition(selKey, Math.max(0, Math.min(queue.length - 1, i)));
  const traceId = queue[at] ?? null;

  const mine = useOp('scores.query', { project_id: project, name: REVIEW, source: 'human', limit: 1000 });
  const done = useMemo(() => new Set((mine.data?.scores ?? []).filter((s) => s.creator === reviewer).map((s) => s.trace_id)), [mine.data, reviewer]);
  const reviewed = queue.filter((t) => done.has(t)).length;

  return (
    <div className="page review-page" data-testid="review-page">
      <div className="page-head">
        <h1>Review</h1>
        <span className="muted" data-testid="review-progress">{queue.length ? `turn ${at + 1} of ${queue.length} · ${reviewed} reviewed` : q.isPending ? 'loading…' : ''}</span>
        <span className="spacer" />
        <ScoreFilter project={project} value={cond} onChange={(c) => setParams((p) => { const n = new URLSearchParams(p); if (c) n.set('score', JSON.stringify(c)); else n.delete('score'); return n; }, { replace: true })} />
        <label className="muted">reviewer <input value={reviewer} onChange={(e) => setReviewer(e.target.value)} size={10} aria-label="Reviewer" /></label>
        <label className="muted">labels <input defaultValue={labels.join(', ')} onBlur={(e) => setLabels(project, e.target.value.split(',').map((l) => l.trim()).filter(Boolean))} size={28} aria-label="Label set" /></label>
      </div>
      <ReviewDataset project={project} />
      <ErrorNote error={q.error} what="the queue" />
      {!q.isPending && queue.length === 0 ? (
        <EmptyState title="Nothing to review in this selection" actions={false}>Choose another score condition, or clear it to review every turn.</EmptyState>
      ) : traceId ? (
        <ReviewTurn key={traceId} project={project} traceId={traceId} reviewer={reviewer} labels={labels} mine={(mine.data?.scores ?? []).find((s) => s.trace_id === traceId && s.creator === reviewer) ?? null} onNext={() => go(at + 1)} onBack={() => go(at - 1)} />
      ) : null}
      <p className="faint review-keys">Keys: <kbd>u</kbd>/<kbd>d</kbd> good/bad · <kbd>1</kbd>–<kbd>9</kbd> label · <kbd>n</kbd> note · <kbd>c</kbd> correct (<kbd>Ctrl</kbd>+<kbd>Enter</kbd> saves) · <kbd>s</kbd> skip · <kbd>j</kbd>/<kbd>k</kbd> next/back</p>
    </div>
  );
}

/** The project's corrections and good turns as an SFT dataset version, in one step, with a way on to Training. */
function ReviewDataset({ project }: { project: string }) {
  const make = useOpMutation('datasets.fromReviews');
  const d = make.data;
  return (
    <div className="review-dataset toolbar" data-testid="review-dataset">
      <button onClick={() => make.mutate({ project_id: project, corrections: true, good: { name: REVIEW, min: 1, source: 'human' } })} disabled={make.isPending} data-testid="review-make-dataset"
        title="Every corrected turn (your answer in place of the original) and every turn labelled good, as an SFT dataset version">
        {make.isPending ? 'Writing dataset…' : 'Make SFT dataset'}
      </button>
      {d && (
        <span className="muted" data-testid="review-dataset-made">
          <strong>{d.dataset.name}:{d.dataset.version}</strong> · {d.lines} examples ({d.corrected} corrected, {d.good} good{d.skipped.length ? `, ${d.skipped.length} skipped` : ''}) · <code className="mono" data-testid="review-dataset-url">{d.url}</code>{' '}
          <Link to={`${projectPath(project, 'training')}?tab=jobs&dataset=${encodeURIComponent(d.url)}`} data-testid="review-dataset-train" title="The Training page's SFT form, with this dataset filled in">Train on it ↗</Link>
        </span>
      )}
      {make.error && <span className="error-text" role="alert">Not written: {make.error.message}</span>}
    </div>
  );
}

function lastAnswer(t: Turn | undefined): string {
  const answers = (t?.messages ?? []).filter((m) => m.type === 'assistant_message' && m.assistant_message?.text);
  return answers.length ? answers[answers.length - 1]!.assistant_message!.text ?? '' : '';
}

function ReviewTurn(p: { project: string; traceId: string; reviewer: string; labels: string[]; mine: Score | null; onNext(): void; onBack(): void }) {
  const turn = useOp('chat.trace', { project_id: p.project, trace_id: p.traceId });
  const save = useOpMutation('scores.create', ['scores.query', 'scores.summary']);
  const [editing, setEditing] = useState<'note' | 'correction' | null>(null);
  const [note, setNote] = useState(p.mine?.explanation ?? '');
  const original = lastAnswer(turn.data);
  const [correction, setCorrection] = useState(p.mine?.correction ?? '');

  /** Writes this reviewer's one `review` score of the turn with `patch` over what is stored. */
  const write = (patch: { value?: boolean | null; label?: string | null; explanation?: string | null; correction?: string | null }, then?: () => void) => {
    const cur = { value: p.mine?.value ?? null, label: p.mine?.label ?? null, explanation: p.mine?.explanation ?? null, correction: p.mine?.correction ?? null };
    save.mutate({ project_id: p.project, scores: [{ target: 'turn', trace_id: p.traceId, name: REVIEW, source: 'human', creator: p.reviewer, ...cur, ...patch }] }, { onSuccess: then });
  };
  const idle = editing === null;
  useKey(['j', 'ArrowRight', 's'], () => p.onNext(), idle);
  useKey(['k', 'ArrowLeft'], () => p.onBack(), idle);
  useKey('u', () => write({ value: true }, p.onNext), idle);
  useKey('d', () => write({ value: false }, p.onNext), idle);
  useKey(['1', '2', '3', '4', '5', '6', '7', '8', '9'], (e) => { const l = p.labels[Number(e.key) - 1]; if (!l) return false; write({ label: l }, p.onNext); }, idle);
  // The input focuses as it mounts (autoFocus, as the correction's): a focus from a timer could run before the input
  // existed, and keys typed meanwhile went to the page's shortcuts.
  useKey('n', () => setEditing('note'), idle);
  useKey('c', () => { setCorrection(p.mine?.correction ?? original); setEditing('correction'); }, idle);

  const stored = p.mine?.correction ?? null;
  return (
    <div className="review-turn" data-testid="review-turn" data-trace={p.traceId}>
      <div className="review-state toolbar" data-testid="review-state">
        <span className={`pill ${p.mine?.value === false ? 'error' : p.mine?.value === true ? 'ok' : ''}`} data-testid="review-thumb">{p.mine?.value === true ? 'good' : p.mine?.value === false ? 'bad' : 'not labelled'}</span>
        {p.labels.map((l, i) => <span key={l} className={`pill ${p.mine?.label === l ? 'ok' : ''}`} data-testid="review-label" aria-pressed={p.mine?.label === l}>{i + 1} {l}</span>)}
        {editing === 'note' ? (
          <input autoFocus value={note} onChange={(e) => setNote(e.target.value)} aria-label="Review note" placeholder="note (Enter saves, Esc cancels)"
            onKeyDown={(e) => { if (e.key === 'Enter') write({ explanation: note.trim() || null }, () => setEditing(null)); if (e.key === 'Escape') setEditing(null); }} />
        ) : p.mine?.explanation ? <span className="muted" data-testid="review-note">“{p.mine.explanation}”</span> : null}
        {save.isPending && <span className="faint">saving…</span>}
        {save.error && <span className="error-text" role="alert">Not saved: {save.error.message}</span>}
      </div>
      {editing === 'correction' && (
        <div className="review-correct">
          <textarea autoFocus rows={6} value={correction} onChange={(e) => setCorrection(e.target.value)} aria-label="Corrected answer" data-testid="review-correction-input"
            onKeyDown={(e) => { if (e.key === 'Enter' && e.ctrlKey) { e.preventDefault(); write({ correction: correction.trim() || null }, () => setEditing(null)); } if (e.key === 'Escape') setEditing(null); }} />
        </div>
      )}
      {stored !== null && editing !== 'correction' && (
        <div className="review-diff" data-testid="review-diff">
          <span className="muted">Correction (beside the original answer):</span>
          <p>{diffWordsWithSpace(original, stored).map((c, i) => (c.added ? <ins key={i}>{c.value}</ins> : c.removed ? <del key={i}>{c.value}</del> : <span key={i}>{c.value}</span>))}</p>
        </div>
      )}
      <ErrorNote error={turn.error} what="the turn" />
      {turn.data && <TurnView turn={turn.data} project={p.project} showTraceLink />}
    </div>
  );
}
