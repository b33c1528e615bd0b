/**
 * Spans explorer: the filter bar (conditions → `$expr`, raw `$expr`, time range) over two modes —
 * list (span rows, column chooser, server sort, paging) and group (group-by builder, measures,
 * group filters, distributions). Filter and mode live in the URL (urlState.ts).
 */
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useProject } from '../../hooks/project';
import { FilterBar, filterRequestPart, type FilterState } from './FilterBar';
import { SpansList } from './SpansList';
import { ScopeTotals, pinnedKey } from './ScopeTotals';
import { GroupView } from './GroupView';
import { filterFromParams, groupFromParams, paramsFromFilter, type GroupState } from './urlState';
import { defaultGroupSpec, useSpansUi } from './spansStore';
import './spans.css';
import { useResetOnChange } from '../../hooks/reset';
import { useScoreNames } from '../../scores/useScores';

export function SpansPage() {
  const project = useProject();
  const [params, setParams] = useSearchParams();
  const [filter, setFilter] = useState<FilterState>(() => filterFromParams(params));
  const [mode, setMode] = useState<'list' | 'group'>(params.get('mode') === 'group' ? 'group' : 'list');
  const [group, setGroup] = useState<GroupState>(() => groupFromParams(params));
  const saved = useSpansUi((s) => s.groupSpecs[project]);
  const scoreNames = useScoreNames(project);

  // A new deep link (e.g. from Agents, or a shared grouping) while mounted replaces the filter and grouping.
  const linkKey = params.toString();
  useResetOnChange([linkKey], () => {
    if (linkKey !== paramsFromFilter(filter, mode, group).toString()) {
      setFilter(filterFromParams(params));
      setMode(params.get('mode') === 'group' ? 'group' : 'list');
      setGroup(groupFromParams(params));
    }
  });

  const update = (f: FilterState, m = mode, g = group) => {
    // Group mode always says in the link what it groups by (the last grouping of this project when the link had none).
    const shown = m === 'group' && !g.spec ? { ...g, spec: saved ?? defaultGroupSpec() } : g;
    setFilter(f);
    setMode(m);
    setGroup(shown);
    setParams(paramsFromFilter(f, m, shown), { replace: true });
  };

  const { part, error } = filterRequestPart(filter);
  // The same request part by value keeps its identity, so the list and group queries do not refetch.
  const partKey = JSON.stringify(part);
  const stablePart = useMemo(() => JSON.parse(partKey) as typeof part, [partKey]);

  return (
    <div className="page spans-page" data-testid="spans-page">
      <div className="page-head">
        <h1>Spans</h1>
        <div className="tabs" role="tablist">
          <button role="tab" aria-selected={mode === 'list'} className={mode === 'list' ? 'active' : ''} onClick={() => update(filter, 'list')} data-testid="mode-list">Spans</button>
          <button role="tab" aria-selected={mode === 'group'} className={mode === 'group' ? 'active' : ''} onClick={() => update(filter, 'group')} data-testid="mode-group">Group by</button>
        </div>
      </div>
      <FilterBar state={filter} onChange={(f) => update(f)} scoreNames={scoreNames} />
      {error ? (
        <div className="error-text" role="alert">Fix the $expr text to run the query: {error}</div>
      ) : mode === 'list' ? (
        <>
          {!filter.text.trim() && pinnedKey(filter.rows) && <ScopeTotals project={project} filterPart={stablePart} pinned={pinnedKey(filter.rows)!} />}
          <SpansList key={project} project={project} filterPart={stablePart} />
        </>
      ) : (
        <GroupView
          key={project}
          project={project}
          filterPart={stablePart}
          spec={group.spec ?? saved ?? defaultGroupSpec()}
          sorting={group.sorting}
          onChange={(g) => update(filter, 'group', g)}
          onDrill={(conds) => update({ ...filter, rows: [...filter.rows, ...conds.map((c) => ({ field: c.field, op: 'eq' as const, value: c.value }))] }, 'list')}
        />
      )}
    </div>
  );
}
