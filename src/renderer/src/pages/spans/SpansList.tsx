/**
 * List mode of the Spans explorer: a page of span rows (spans.query without group_by), sorted by the
 * server, offset-paged, with the column chooser. Opening a row shows its trace.
 */
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { projectPath } from '../../hooks/project';
import { DataTable } from '../../components/DataTable';
import { useUi } from '../../stores/ui';
import { ColumnChooser } from './ColumnChooser';
import { DEFAULT_VISIBLE, spanColumns, type SpanRow } from './columns';
import { customColumnId, NO_COLUMNS, useSpansUi } from './spansStore';
import { ErrorNote } from '../../components/ErrorNote';
import { useResetOnChange } from '../../hooks/reset';

const PAGE_SIZES = [50, 100, 500, 1000];

export function SpansList({ project, filterPart }: { project: string; filterPart: Record<string, unknown> }) {
  const navigate = useNavigate();
  const prefsKey = `${project}/spans`;
  const prefs = useUi((s) => s.columns[prefsKey]);
  const setColumns = useUi((s) => s.setColumns);
  const custom = useSpansUi((s) => s.customColumns[project] ?? NO_COLUMNS);
  const addCustom = useSpansUi((s) => s.addCustomColumn);
  const removeCustom = useSpansUi((s) => s.removeCustomColumn);
  const [sorting, setSorting] = useState<SortingState>([{ id: 'started_at', desc: true }]);
  const [pageSize, setPageSize] = useState(100);
  const [page, setPage] = useState(0);

  // A new filter starts again at the first page.
  useResetOnChange([filterPart], () => setPage(0));

  const columns = useMemo(() => spanColumns(custom), [custom]);
  const allIds = useMemo(() => columns.map((c) => c.id!), [columns]);
  const visible = (prefs?.order ?? [...DEFAULT_VISIBLE, ...custom.map(customColumnId)]).filter((id) => allIds.includes(id));
  const ordered = useMemo(() => [...visible.map((id) => columns.find((c) => c.id === id)!), ...columns.filter((c) => !visible.includes(c.id!))], [columns, visible]);
  const hidden = allIds.filter((id) => !visible.includes(id));

  const input = useMemo(
    () => ({
      project_id: project,
      include_costs: true,
      limit: pageSize,
      offset: page * pageSize,
      sort_by: sorting.map((s) => ({ field: s.id, direction: s.desc ? ('desc' as const) : ('asc' as const) })),
      ...(custom.length ? { custom_attr_columns: custom.map((c) => ({ source: c.source, key: c.key })) } : {}),
      ...filterPart,
    }),
    [project, pageSize, page, sorting, custom, filterPart],
  );
  const q = useOp('spans.query', input);
  const total = q.data?.total_count ?? 0;
  const rows = (q.data?.spans ?? []) as SpanRow[];
  const from = total === 0 ? 0 : page * pageSize + 1;

  return (
    <div className="spans-list">
      <div className="toolbar">
        <ColumnChooser
          all={allIds}
          visible={visible}
          setVisible={(ids) => setColumns(prefsKey, { ...prefs, order: ids })}
          custom={custom}
          addCustom={(c) => {
            addCustom(project, c);
            setColumns(prefsKey, { ...prefs, order: [...visible, customColumnId(c)] });
          }}
          removeCustom={(c) => removeCustom(project, c)}
        />
        <span className="muted" data-testid="spans-range">{q.data ? `${from}–${page * pageSize + rows.length} of ${total} spans` : 'Loading…'}</span>
        <button onClick={() => setPage((p) => Math.max(0, p - 1))} disabled={page === 0} data-testid="prev-page">‹ Prev</button>
        <button onClick={() => setPage((p) => p + 1)} disabled={(page + 1) * pageSize >= total} data-testid="next-page">Next ›</button>
        <select value={pageSize} onChange={(e) => { setPageSize(Number(e.target.value)); setPage(0); }} aria-label="Page size">
          {PAGE_SIZES.map((n) => <option key={n} value={n}>{n} / page</option>)}
        </select>
      </div>
      <ErrorNote error={q.error} what="spans" />
      <DataTable
          prefsKey={prefsKey}
        data={rows}
        columns={ordered}
        hiddenColumns={hidden}
        getRowId={(r) => `${r.trace_id}/${r.span_id}`}
        sorting={sorting}
        onSortingChange={(s) => { setSorting(s); setPage(0); }}
        onOpen={(r) => { if (r.trace_id) void navigate(projectPath(project, 'traces', r.trace_id)); }}
        testId="spans-table"
        rowTestId={() => 'span-row'}
        rowClassName={(r) => (r.status_code === 'ERROR' ? 'row-error' : undefined)}
      />
    </div>
  );
}
