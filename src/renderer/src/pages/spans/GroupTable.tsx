/**
 * Group mode results: one row per group with its keys, the chosen measures, the distributions
 * (small histograms / bar lists) and the fixed totals of a group row. Sorted by the server.
 * Opening a group filters the list to it (a condition per field key).
 * Readable at 1024 as at 1440 (issue 22.10): measures read as what they measure (measureFormat.ts),
 * a fixed total that a measure repeats (a plain count = Spans) is shown once, every column has a
 * starting width and a readable minimum (distributions at least 170 px), integer histograms have
 * whole-number bins.
 */
import { useMemo } from 'react';
import { createColumnHelper, type SortingState } from '@tanstack/react-table';
import { DataTable, type AnyColumn } from '../../components/DataTable';
import { fmtCost, fmtDuration, fmtTimeShort, fmtTokens } from '../../components/format';
import type { OpOutput } from '../../../../shared/contract/index';
import { DistributionCell } from './Distribution';
import { formatMeasure, type MeasureKind } from './measureFormat';

export type GroupRow = OpOutput<'spans.query'>['groups'][number];
const col = createColumnHelper<GroupRow>();

export interface GroupMeasureColumn { alias: string; kind: MeasureKind }
export interface GroupDistColumn { alias: string; integer: boolean }

export interface GroupTableProps {
  rows: GroupRow[];
  keyAliases: string[];
  /** Header text per key alias (the key itself); the alias when absent. */
  keyLabels?: Record<string, string>;
  measures: GroupMeasureColumn[];
  dists: GroupDistColumn[];
  /** Fixed totals left out because a measure shows the same number (measureFormat.fixedTotalOf). */
  hiddenTotals?: string[];
  sorting: SortingState;
  onSortingChange(s: SortingState): void;
  onOpen(row: GroupRow): void;
}

/**
 * A column's smallest width: its content's `base`, or what its header needs to read whole (12 px
 * semibold ≈ 7.8 px a character at most, plus padding and the sort mark), whichever is more.
 */
const fitHeader = (header: string, base: number, sortable = true) => Math.max(base, Math.ceil(header.length * 7.8) + (sortable ? 32 : 18));
const count = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toLocaleString('en-US'));

export function GroupTable(p: GroupTableProps) {
  const hiddenKey = (p.hiddenTotals ?? []).join(',');
  const columns = useMemo(() => {
    const hidden = new Set(hiddenKey ? hiddenKey.split(',') : []);
    const cols: AnyColumn<GroupRow>[] = [];
    for (const a of p.keyAliases) {
      cols.push(col.accessor((r) => r.group_keys[a], { id: a, header: p.keyLabels?.[a] ?? a, meta: { min: fitHeader(p.keyLabels?.[a] ?? a, 120) }, cell: (c) => <strong data-testid={`gk-${a}`}>{c.getValue() === null || c.getValue() === undefined ? '(none)' : String(c.getValue())}</strong> }));
    }
    for (const m of p.measures) {
      cols.push(col.accessor((r) => r.metrics[m.alias], { id: m.alias, header: m.alias, size: fitHeader(m.alias, 96) + 8, meta: { numeric: true, min: fitHeader(m.alias, 84) }, cell: (c) => <span data-testid={`m-${m.alias}`} data-value={c.getValue() ?? ''}>{formatMeasure(m.kind, c.getValue())}</span> }));
    }
    for (const d of p.dists) {
      cols.push(col.accessor((r) => r.distributions[d.alias], { id: `dist:${d.alias}`, header: d.alias, enableSorting: false, size: 210, meta: { min: fitHeader(d.alias, 170, false) }, cell: (c) => <div data-testid={`dist-${d.alias}`} className="dist-cell"><DistributionCell dist={c.getValue()} integer={d.integer} /></div> }));
    }
    const totals: AnyColumn<GroupRow>[] = [
      col.accessor('span_count', { header: 'Spans', size: 80, meta: { numeric: true, min: fitHeader('Spans', 64) }, cell: (c) => <span data-testid="g-span_count">{count(c.getValue())}</span> }),
      col.accessor('invocation_count', { header: 'Invocations', size: 116, meta: { numeric: true, min: fitHeader('Invocations', 64) }, cell: (c) => count(c.getValue()) }),
      col.accessor('error_count', { header: 'Errors', size: 80, meta: { numeric: true, min: fitHeader('Errors', 60) }, cell: (c) => <span className={c.getValue() ? 'error-text' : undefined} data-testid="g-error_count">{count(c.getValue())}</span> }),
      col.accessor('conversation_count', { header: 'Conversations', size: 130, meta: { numeric: true, min: fitHeader('Conversations', 64) }, cell: (c) => count(c.getValue()) }),
      col.accessor('total_input_tokens', { header: 'In tok', size: 80, meta: { numeric: true, min: fitHeader('In tok', 64) }, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
      col.accessor('total_output_tokens', { header: 'Out tok', size: 86, meta: { numeric: true, min: fitHeader('Out tok', 64) }, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
      col.accessor('total_cost_usd', { header: 'Cost', size: 94, meta: { numeric: true, min: 90 }, cell: (c) => fmtCost(c.getValue()) }),
      col.accessor('total_duration_ms', { header: 'Time', size: 84, meta: { numeric: true, min: 76 }, cell: (c) => fmtDuration(c.getValue()) }),
      col.accessor('last_seen', { header: 'Last seen', size: 124, meta: { min: 104 }, cell: (c) => <span title={c.getValue() ?? undefined}>{fmtTimeShort(c.getValue())}</span> }),
    ];
    for (const t of totals) {
      const id = t.id ?? (t as { accessorKey?: string }).accessorKey ?? '';
      if (!hidden.has(id)) cols.push(t);
    }
    return cols;
  }, [p.keyAliases, p.keyLabels, p.measures, p.dists, hiddenKey]);

  return (
    <DataTable
      data={p.rows}
      columns={columns}
      getRowId={(r) => JSON.stringify(r.group_keys)}
      sorting={p.sorting}
      onSortingChange={p.onSortingChange}
      onOpen={p.onOpen}
      rowHeight={p.dists.length ? 78 : 34}
      testId="groups-table"
      rowTestId={() => 'group-row'}
    />
  );
}
