/**
 * DataTable — a virtualized table: @tanstack/react-table for columns and sorting state,
 * @tanstack/react-virtual for rows (spacer rows above/below, so sticky headers keep working).
 * Props:
 *  - data: rows; columns: react-table ColumnDef[] (set `meta: { numeric: true }` to right-align,
 *    `size` for a fixed width in px — columns without `size` share the rest —, `enableSorting: false`
 *    for unsortable columns)
 *  - sorting / onSortingChange: server-side sort — when given, the table does not sort itself, it
 *    only reports clicks (header click cycles desc → asc → none)
 *  - selected / onSelect: the keyboard-highlighted row index; onOpen(row, index): click or Enter
 *  - keyboard: bind j/k/↑/↓/Enter (default true; turn off when two tables share a page)
 *  - onEndReached: called when the last rows come into view (load the next page)
 *  - hiddenColumns: ids not shown (column chooser state from the UI store)
 *  - rowHeight (default 34), testId, rowTestId(row) for e2e locators
 */
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { useListKeys } from '../hooks/keys';

export interface DataTableProps<T> {
  data: T[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: ColumnDef<T, any>[];
  getRowId?: (row: T, index: number) => string;
  sorting?: SortingState;
  onSortingChange?: (s: SortingState) => void;
  selected?: number;
  onSelect?: (index: number) => void;
  onOpen?: (row: T, index: number) => void;
  keyboard?: boolean;
  onEndReached?: () => void;
  hiddenColumns?: string[];
  rowHeight?: number;
  testId?: string;
  rowTestId?: (row: T) => string;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, rowHeight = 34, keyboard = true } = props;
  const [localSort, setLocalSort] = useState<SortingState>([]);
  const [localSel, setLocalSel] = useState(-1);
  const serverSort = props.onSortingChange !== undefined;
  const sorting = props.sorting ?? localSort;
  const selected = props.selected ?? localSel;
  const setSelected = props.onSelect ?? setLocalSel;

  const table = useReactTable({
    data,
    columns,
    getRowId: props.getRowId,
    state: {
      sorting,
      columnVisibility: Object.fromEntries((props.hiddenColumns ?? []).map((c) => [c, false])),
    },
    manualSorting: serverSort,
    sortDescFirst: true,
    onSortingChange: (u) => {
      const next = typeof u === 'function' ? u(sorting) : u;
      if (serverSort) props.onSortingChange!(next);
      else setLocalSort(next);
    },
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: serverSort ? undefined : getSortedRowModel(),
  });
  const rows = table.getRowModel().rows;

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => rowHeight, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;

  const open = (row: Row<T>) => props.onOpen?.(row.original, row.index);
  useListKeys({ count: rows.length, selected, setSelected, onOpen: (i) => rows[i] && open(rows[i]), enabled: keyboard });
  useEffect(() => {
    if (selected >= 0 && selected < rows.length) virtualizer.scrollToIndex(selected, { align: 'auto' });
  }, [selected, rows.length, virtualizer]);

  const lastIndex = items[items.length - 1]?.index ?? -1;
  const { onEndReached } = props;
  useEffect(() => {
    if (onEndReached && rows.length > 0 && lastIndex >= rows.length - 5) onEndReached();
  }, [lastIndex, rows.length, onEndReached]);

  const colCount = table.getVisibleLeafColumns().length;
  // react-table fills in a default size (150) for every column, so read which ones the caller sized.
  const sized = new Set(columns.filter((c) => c.size !== undefined).map((c) => c.id ?? (c as { accessorKey?: string }).accessorKey));
  return (
    <div className="dt" ref={scrollRef} data-testid={props.testId}>
      <table>
        {/* Widths on <col>: with table-layout fixed, sized columns keep their px and the rest share what is left. */}
        <colgroup>
          {table.getVisibleLeafColumns().map((c) => <col key={c.id} style={{ width: sized.has(c.id) ? c.getSize() : undefined }} />)}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const meta = h.column.columnDef.meta as { numeric?: boolean } | undefined;
                const dir = h.column.getIsSorted();
                const can = h.column.getCanSort();
                return (
                  <th
                    key={h.id}
                    className={`${can ? 'sortable' : ''} ${meta?.numeric ? 'num' : ''}`}
                    onClick={can ? h.column.getToggleSortingHandler() : undefined}
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
                  >
                    {flexRender(h.column.columnDef.header, h.getContext())}
                    {dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && <tr style={{ height: padTop }}><td colSpan={colCount} /></tr>}
          {items.map((vi) => {
            const row = rows[vi.index]!;
            return (
              <tr
                key={row.id}
                className={`row ${vi.index === selected ? 'selected' : ''}`}
                style={{ height: rowHeight }}
                data-testid={props.rowTestId?.(row.original)}
                aria-selected={vi.index === selected}
                onClick={() => { setSelected(vi.index); open(row); }}
              >
                {row.getVisibleCells().map((c) => {
                  const meta = c.column.columnDef.meta as { numeric?: boolean } | undefined;
                  return <td key={c.id} className={meta?.numeric ? 'num' : undefined}>{flexRender(c.column.columnDef.cell, c.getContext())}</td>;
                })}
              </tr>
            );
          })}
          {padBottom > 0 && <tr style={{ height: padBottom }}><td colSpan={colCount} /></tr>}
        </tbody>
      </table>
    </div>
  );
}
