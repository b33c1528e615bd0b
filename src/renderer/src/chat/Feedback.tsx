/**
 * FeedbackBadges — compact badges for feedback records (thumbs, ratings, tags, notes).
 * FeedbackControl — the user's own thumbs on a conversation, turn or span, showing its state:
 * a pressed thumb is the stored one; pressing it again removes it, pressing the other one changes it,
 * the note can be written, edited or cleared ('feedback.create' / 'feedback.update' / 'feedback.delete'
 * against `svc:///<project>/<trace|span|conversation>/<id>`).
 * Props: project, kind, id, records? (the target's feedback as the view loaded it; the user's own
 * record is the latest thumbs record created by this app).
 */
import { Icon } from '../components/Icon';
import { useState } from 'react';
import { useOpMutation } from '../api/query';
import type { FeedbackRecord } from '../api/views';
import type { OpName } from '../../../shared/contract/index';
import { useResetOnChange } from '../hooks/reset';

export const UI_CREATOR = 'loupe-ui';

function describe(f: FeedbackRecord): { icon: string; text: string; negative: boolean } {
  const p = f.payload;
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

/** The record this app's thumbs control owns among a target's feedback: the latest one it created. */
export function ownThumbs(records: FeedbackRecord[] | null | undefined): FeedbackRecord | null {
  const mine = (records ?? []).filter((f) => f.feedback_type === 'thumbs' && f.creator === UI_CREATOR);
  return mine.length ? mine[mine.length - 1]! : null;
}

export function FeedbackBadges({ items, except }: { items: FeedbackRecord[] | null | undefined; except?: FeedbackRecord | null }) {
  const shown = (items ?? []).filter((f) => f.id !== except?.id);
  if (!shown.length) return null;
  return (
    <span className="fb-badges" data-testid="feedback-badges">
      {shown.map((f) => {
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

const REFRESH: OpName[] = ['chat.conversation', 'chat.trace', 'feedback.query'];

export function FeedbackControl(props: { project: string; kind: 'conversation' | 'trace' | 'span'; id: string; records?: FeedbackRecord[] | null }) {
  const own = ownThumbs(props.records);
  const stored = (own?.payload as { value?: unknown } | undefined)?.value;
  const storedThumb = stored === 'up' || stored === 'down' ? stored : null;
  const storedNote = typeof (own?.payload as { note?: unknown } | undefined)?.note === 'string' ? String((own!.payload as { note: string }).note) : '';
  // What the buttons show: the stored state, or the user's choice while it is being saved.
  const [pending, setPending] = useState<'up' | 'down' | null | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [note, setNote] = useState(storedNote);
  // A note being typed is kept: the first thumb's record arrives (a refetch) while the note it invited
  // is being written, and resetting then emptied the box, so Save stored the thumb without the note.
  useResetOnChange([own?.id, storedThumb, storedNote], () => { setPending(undefined); if (!editing) setNote(storedNote); });
  const create = useOpMutation('feedback.create', REFRESH);
  const update = useOpMutation('feedback.update', REFRESH);
  const remove = useOpMutation('feedback.delete', REFRESH);
  const busy = create.isPending || update.isPending || remove.isPending;
  const error = create.error ?? update.error ?? remove.error;
  const thumb = pending === undefined ? storedThumb : pending;

  const save = (value: 'up' | 'down' | null, text: string) => {
    const payload = text.trim() ? { value, note: text.trim() } : { value };
    setPending(value);
    const settle = { onError: () => setPending(undefined) };
    if (value === null && own) remove.mutate({ project_id: props.project, id: own.id }, settle);
    else if (value === null) setPending(undefined);
    else if (own) update.mutate({ project_id: props.project, id: own.id, payload }, settle);
    else create.mutate({ svc_ref: `svc:///${props.project}/${props.kind}/${props.id}`, feedback_type: 'thumbs', payload, creator: UI_CREATOR }, settle);
  };
  const press = (value: 'up' | 'down') => {
    // Pressing the stored thumb again takes it back.
    if (thumb === value) save(null, '');
    else {
      save(value, note);
      if (!own) setEditing(true); // a first thumb invites a note
    }
  };
  const label = props.kind === 'span' ? 'span' : props.kind === 'trace' ? 'turn' : 'conversation';
  return (
    <span className="fb-control" data-testid="feedback-control" data-state={thumb ?? 'none'}>
      <button className={`icon ${thumb === 'up' ? 'active' : ''}`} aria-pressed={thumb === 'up'} aria-label={`Thumbs up for this ${label}`} title={thumb === 'up' ? 'Good (press again to remove)' : 'Good'} onClick={() => press('up')} disabled={busy}><Icon name="up" /></button>
      <button className={`icon ${thumb === 'down' ? 'active down' : ''}`} aria-pressed={thumb === 'down'} aria-label={`Thumbs down for this ${label}`} title={thumb === 'down' ? 'Bad (press again to remove)' : 'Bad'} onClick={() => press('down')} disabled={busy}><Icon name="down" /></button>
      {own && !editing && (
        <button className="icon note-btn" onClick={() => setEditing(true)} aria-label={storedNote ? 'Edit feedback note' : 'Add a feedback note'} title={storedNote || 'Add a note'} data-testid="feedback-note-button">
          <Icon name="note" size={12} />{storedNote && <span className="fb-note-text">{storedNote.length > 40 ? `${storedNote.slice(0, 40)}…` : storedNote}</span>}
        </button>
      )}
      {editing && thumb && (
        <span className="fb-note">
          <input
            autoFocus
            placeholder="Note (optional)"
            aria-label="Feedback note"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') { save(thumb, note); setEditing(false); }
              if (e.key === 'Escape') { setNote(storedNote); setEditing(false); }
            }}
          />
          <button className="primary" onClick={() => { save(thumb, note); setEditing(false); }} disabled={busy}>Save</button>
          <button onClick={() => { setNote(storedNote); setEditing(false); }}>Close</button>
          {own && <button onClick={() => { save(null, ''); setEditing(false); }} data-testid="feedback-delete">Delete</button>}
        </span>
      )}
      {error && <span className="error-text" role="alert">Feedback not saved: {error.message}</span>}
    </span>
  );
}
