/**
 * "Train on these conversations": pick conversations of the current project (threads.query lists
 * them with turn counts), write them as an SFT dataset (datasets.fromConversations) and hand the
 * file URL to the SFT form.
 */
import { useState } from 'react';
import { useOp, useOpMutation } from '../../api/query';
import { useProject } from '../../hooks/project';

export function FromConversations({ onDataset }: { onDataset(url: string, lines: number): void }) {
  const project = useProject();
  const threads = useOp('threads.query', { project_id: project, limit: 200, sort_by: [{ field: 'last_updated', direction: 'desc' }] });
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const make = useOpMutation('datasets.fromConversations');
  const rows = (threads.data ?? []) as { thread_id: string; turn_count: number; last_updated: string | null }[];

  const toggle = (id: string) =>
    setChosen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return (
    <div className="from-convs" data-testid="from-conversations">
      <div className="muted">Conversations of <strong>{project}</strong> — choose the ones to learn from.</div>
      {threads.error && <div className="error-text" role="alert">{threads.error.message}</div>}
      <ul className="conv-pick">
        {rows.map((t) => (
          <li key={t.thread_id}>
            <label>
              <input type="checkbox" checked={chosen.has(t.thread_id)} onChange={() => toggle(t.thread_id)} data-testid="conv-check" />
              <span className="mono">{t.thread_id}</span> <span className="faint">{t.turn_count} turns</span>
            </label>
          </li>
        ))}
        {threads.data && rows.length === 0 && <li className="muted">No conversations in this project.</li>}
      </ul>
      <button
        disabled={chosen.size === 0 || make.isPending}
        onClick={() => make.mutate({ project_id: project, conversation_ids: [...chosen] }, { onSuccess: (r) => onDataset(r.url, r.lines) })}
        data-testid="make-dataset"
      >
        {make.isPending ? 'Writing dataset…' : `Make dataset from ${chosen.size} conversation${chosen.size === 1 ? '' : 's'}`}
      </button>
      {make.data && (
        <div className="muted" data-testid="dataset-made">
          {make.data.lines} examples written{make.data.skipped.length ? `, ${make.data.skipped.length} skipped` : ''}.
        </div>
      )}
      {make.error && <div className="error-text" role="alert">{make.error.message}</div>}
    </div>
  );
}
