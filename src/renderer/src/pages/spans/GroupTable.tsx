/**
 * Group mode results: one row per group with its keys, the chosen measures, the distributions
 * (small histograms / bar lists) and the fixed totals of a group row. Sorted by the server.
 * Opening a group filters the list to it (a condition per field key).
 */
import { useMemo } from 'react';
import { createColumnHelper, type SortingState } from '@tanstack/react-table';
import { DataTable, type AnyColumn } from '../../components/DataTable';
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from '../../components/format';
import type { OpOutput } from '../../../../shared/contract/index';
import { DistributionCell } from './Distribution';

export type GroupRow = OpOutput<'spans.query'>['groups'][number];
const col = createColumnHelper<GroupRow>();

function fmtMetric(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(3);
}

export interface GroupTableProps {
  rows: GroupRow[];
  keyAliases: string[];
  /** Header text per key alias (the key itself); the alias when absent. */
  keyLabels?: Record<string, string>;
  measureAliases: string[];
  distAliases: string[];
  sorting: SortingState;
  onSortingChange(s: SortingState): void;
  onOpen(row: GroupRow): void;
}

export function GroupTable(p: GroupTableProps) {
  const columns = useMemo(() => {
    const cols: AnyColumn<GroupRow>[] = [];
    for (const a of p.keyAliases) {
      cols.push(col.accessor((r) => r.group_keys[a], { id: a, header: p.keyLabels?.[a] ?? a, cell: (c) => <strong data-testid={`gk-${a}`}>{c.getValue() === null || c.getValue() === undefined ? '(none)' : String(c.getValue())}</strong> }));
    }
    for (const a of p.measureAliases) {
      cols.push(col.accessor((r) => r.metrics[a], { id: a, header: a, meta: { numeric: true }, cell: (c) => <span data-testid={`m-${a}`} data-value={c.getValue() ?? ''}>{fmtMetric(c.getValue())}</span> }));
    }
    for (const a of p.distAliases) {
      cols.push(col.accessor((r) => r.distributions[a], { id: `dist:${a}`, header: a, enableSorting: false, size: 170, cell: (c) => <div data-testid={`dist-${a}`}><DistributionCell dist={c.getValue()} /></div> }));
    }
    cols.push(
      col.accessor('span_count', { header: 'Spans', meta: { numeric: true }, cell: (c) => <span data-testid="g-span_count">{c.getValue()}</span> }),
      col.accessor('invocation_count', { header: 'Invocations', meta: { numeric: true } }),
      col.accessor('error_count', { header: 'Errors', meta: { numeric: true }, cell: (c) => <span className={c.getValue() ? 'error-text' : undefined} data-testid="g-error_count">{c.getValue()}</span> }),
      col.accessor('conversation_count', { header: 'Conversations', meta: { numeric: true } }),
      col.accessor('total_input_tokens', { header: 'In tokens', meta: { numeric: true }, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
      col.accessor('total_output_tokens', { header: 'Out tokens', meta: { numeric: true }, cell: (c) => (c.row.original.usage_known ? fmtTokens(c.getValue()) : '–') }),
      col.accessor('total_cost_usd', { header: 'Cost', meta: { numeric: true }, cell: (c) => fmtCost(c.getValue()) }),
      col.accessor('total_duration_ms', { header: 'Time', meta: { numeric: true }, cell: (c) => fmtDuration(c.getValue()) }),
      col.accessor('last_seen', { header: 'Last seen', size: 190, cell: (c) => fmtTime(c.getValue()) }),
    );
    return cols;
  }, [p.keyAliases, p.keyLabels, p.measureAliases, p.distAliases]);

  return (
    <DataTable
      data={p.rows}
      columns={columns}
      getRowId={(r) => JSON.stringify(r.group_keys)}
      sorting={p.sorting}
      onSortingChange={p.onSortingChange}
      onOpen={p.onOpen}
      rowHeight={p.distAliases.length ? 64 : 34}
      testId="groups-table"
      rowTestId={() => 'group-row'}
    />
  );
}
