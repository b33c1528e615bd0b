/**
 * FeedbackBadges — compact badges for feedback records (thumbs, ratings, tags, notes).
 * FeedbackControl — thumbs up/down plus an optional note, stored with 'feedback.create' against
 * `svc:///<project>/<trace|span|conversation>/<id>`. Props: project, kind, id.
 */
import { Icon } from '../components/Icon';
import { useState } from 'react';
import { useOpMutation } from '../api/query';
import type { FeedbackRecord } from '../api/views';

function describe(f: FeedbackRecord): { icon: string; text: string; negative: boolean } {
  const p = f.payload as Record<string, unknown>;
  const value = p.value ?? p.thumbs ?? p.score ?? p.rating;
  const note = typeof p.note === 'string' ? p.note : typeof p.comment === 'string' ? p.comment : typeof p.text === 'string' ? p.text : '';
  const type = f.feedback_type.toLowerCase();
  const up = value === 'up' || value === true || value === 1 || type.includes('up') || type === 'positive';
  const down = value === 'down' || value === false || value === 0 || value === -1 || type.includes('down') || type === 'negative';
  const ratings = Object.entries(f.scorer_ratings).map(([k, v]) => `${k}: ${v}`).join(', ');
  const icon = up ? 'up' : down ? 'down' : 'note';
  const text = [ratings, typeof value === 'number' && !up && !down ? String(value) : '', f.scorer_tags.join(', '), note].filter(Boolean).join(' · ');
  return { icon, text: text || f.feedback_type, negative: down };
}

export function FeedbackBadges({ items }: { items: FeedbackRecord[] | null | undefined }) {
  if (!items?.length) return null;
  return (
    <span className="fb-badges" data-testid="feedback-badges">
      {items.map((f) => {
        const d = describe(f);
        return (
          <span key={f.id} className={`pill fb ${d.negative ? 'error' : 'ok'}`} title={`${f.feedback_type}${f.creator ? ` by ${f.creator}` : ''}${f.created_at ? ` at ${f.created_at}` : ''}\n${JSON.stringify(f.payload)}`}>
            <Icon name={d.icon} size={12} /> {d.text.length > 60 ? `${d.text.slice(0, 60)}…` : d.text}
          </span>
        );
      })}
    </span>
  );
}

export function FeedbackControl(props: { project: string; kind: 'conversation' | 'trace' | 'span'; id: string }) {
  const [thumb, setThumb] = useState<'up' | 'down' | null>(null);
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const create = useOpMutation('feedback.create', ['chat.conversation', 'chat.trace', 'feedback.query']);
  const send = (value: 'up' | 'down') => {
    setThumb(value);
    setOpen(true);
  };
  const save = () => {
    if (!thumb) return;
    create.mutate(
      {
        svc_ref: `svc:///${props.project}/${props.kind}/${props.id}`,
        feedback_type: 'thumbs',
        payload: note.trim() ? { value: thumb, note: note.trim() } : { value: thumb },
        creator: 'loupe-ui',
      },
      { onSuccess: () => { setOpen(false); setNote(''); setThumb(null); } },
    );
  };
  return (
    <span className="fb-control" data-testid="feedback-control">
      <button className={`icon ${thumb === 'up' ? 'active' : ''}`} aria-label="Thumbs up" title="Good" onClick={() => send('up')}><Icon name="up" /></button>
      <button className={`icon ${thumb === 'down' ? 'active' : ''}`} aria-label="Thumbs down" title="Bad" onClick={() => send('down')}><Icon name="down" /></button>
      {open && (
        <span className="fb-note">
          <input autoFocus placeholder="Note (optional)" aria-label="Feedback note" value={note} onChange={(e) => setNote(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter') save(); }} />
          <button className="primary" onClick={save} disabled={create.isPending}>Save</button>
          <button onClick={() => { setOpen(false); setThumb(null); }}>Cancel</button>
        </span>
      )}
      {create.error && <span className="error-text">{create.error.message}</span>}
    </span>
  );
}
