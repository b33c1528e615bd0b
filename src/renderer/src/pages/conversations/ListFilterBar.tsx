/**
 * Filter bar of the conversations list: search box (`/` focuses it), agent, model and status
 * selects, and a score condition (issue 20). Agent and model options come from
 * 'conversations.facets' (read from summaries); score names from the project's score summaries.
 */
import { useEffect, useState } from 'react';
import { useOp } from '../../api/query';
import type { ListFilters } from './listQuery';
import { useLatest } from '../../hooks/latest';
import { ScoreFilter } from '../../scores/ScoreFilter';

export function ListFilterBar(props: { project: string; filters: ListFilters; onChange(f: ListFilters): void }) {
  const { filters, onChange, project } = props;
  const [text, setText] = useState(filters.search);
  // Debounce typing so every keystroke does not become a query (only typing restarts the wait).
  const latest = useLatest({ filters, onChange });
  useEffect(() => {
    if (text === latest.current.filters.search) return;
    const t = setTimeout(() => latest.current.onChange({ ...latest.current.filters, search: text }), 250);
    return () => clearTimeout(t);
  }, [text, latest]);
  const { data } = useOp('conversations.facets', { project_id: project });
  const agents = data?.agent_names ?? [];
  const models = data?.request_models ?? [];
  return (
    <div className="toolbar">
      <input
        data-search
        type="search"
        placeholder="Search what was said, ids, attributes (/)"
        aria-label="Search conversations"
        value={text}
        onChange={(e) => setText(e.target.value)}
        style={{ width: 280 }}
      />
      <select aria-label="Agent" value={filters.agent} onChange={(e) => onChange({ ...filters, agent: e.target.value })}>
        <option value="">All agents</option>
        {agents.map((a) => <option key={a} value={a}>{a}</option>)}
      </select>
      <select aria-label="Model" value={filters.model} onChange={(e) => onChange({ ...filters, model: e.target.value })}>
        <option value="">All models</option>
        {models.map((m) => <option key={m} value={m}>{m}</option>)}
      </select>
      <select aria-label="Status" value={filters.status} onChange={(e) => onChange({ ...filters, status: e.target.value as ListFilters['status'] })}>
        <option value="all">Any status</option>
        <option value="error">With errors</option>
        <option value="ok">Without errors</option>
      </select>
      <ScoreFilter project={project} value={filters.score} onChange={(score) => onChange({ ...filters, score })} />
    </div>
  );
}
