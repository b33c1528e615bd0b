/**
 * DataTable — a virtualized table: @tanstack/react-table for columns, sorting and column sizing,
 * @tanstack/react-virtual for rows (spacer rows above/below, so sticky headers keep working).
 * - Columns can be resized by dragging a header's right edge; a double click on that edge fits the
 *   column to its widest visible content. Widths are remembered per table (`prefsKey`, UI store).
 * - A cell too narrow for its content ends in an ellipsis and shows the full value on hover.
 * - In a narrow window, columns the user did not resize shrink in proportion towards their minimums
 *   (`meta.min`); below the sum of minimums the table scrolls sideways instead of squeezing one.
 * - Sortable headers show that they sort (a faint ↕), the active one its direction (▲ / ▼).
 * Props:
 *  - data: rows; columns: react-table ColumnDef[] (`meta: { numeric: true }` right-aligns,
 *    `meta: { min: px }` the smallest width, `size` a starting width in px — columns without `size`
 *    share the rest —, `enableSorting: false` for unsortable columns)
 *  - sorting / onSortingChange: server-side sort — when given, the table does not sort itself, it
 *    only reports clicks (header click cycles desc → asc → none)
 *  - selected / onSelect: the keyboard-highlighted row index; onOpen(row, index): click or Enter
 *  - keyboard: bind j/k/↑/↓/Enter (default true; turn off when two tables share a page)
 *  - onEndReached: called when the last rows come into view (load the next page)
 *  - hiddenColumns: ids not shown (column chooser state from the UI store)
 *  - prefsKey: where resized widths are remembered (e.g. `<project>/conversations`)
 *  - rowHeight (default 34), testId, rowTestId(row) for e2e locators
 *  - rowClassName(row): an extra class for a row (e.g. `row-error` for a failed span)
 */
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type ColumnSizingState, type SortingState, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { useListKeys } from '../hooks/keys';
import { useUi } from '../stores/ui';
import { useWidth } from '../hooks/width';
import { useResetOnChange } from '../hooks/reset';

/**
 * A column of rows `T` whatever its cell value type. react-table's ColumnDef is invariant in that
 * type, so a list of columns holding numbers, strings and dates can only be typed this way.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- react-table's documented typing for columns of mixed value types (ColumnDef<T, unknown> rejects them)
export type AnyColumn<T> = ColumnDef<T, any>;

export interface DataTableProps<T> {
  data: T[];
  columns: AnyColumn<T>[];
  getRowId?: (row: T, index: number) => string;
  sorting?: SortingState;
  onSortingChange?: (s: SortingState) => void;
  selected?: number;
  onSelect?: (index: number) => void;
  onOpen?: (row: T, index: number) => void;
  keyboard?: boolean;
  onEndReached?: () => void;
  hiddenColumns?: string[];
  prefsKey?: string;
  rowHeight?: number;
  testId?: string;
  rowTestId?: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
}

interface Meta { numeric?: boolean; min?: number }
/** A column's `meta` as the callers fill it (react-table types it as an empty interface). */
const metaOf = (c: { columnDef: { meta?: object } } | undefined): Meta => c?.columnDef.meta ?? {};
const DEFAULT_MIN = 60;
/** Columns without a size get at least this much before the table scrolls sideways. */
const FLEX_MIN = 160;

export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, rowHeight = 34, keyboard = true } = props;
  const [localSort, setLocalSort] = useState<SortingState>([]);
  const [localSel, setLocalSel] = useState(-1);
  const serverSort = props.onSortingChange !== undefined;
  const sorting = props.sorting ?? localSort;
  const selected = props.selected ?? localSel;
  const setSelected = props.onSelect ?? setLocalSel;
  const stored = useUi((s) => (props.prefsKey ? s.columns[props.prefsKey]?.widths : undefined));
  const setColumns = useUi((s) => s.setColumns);
  const [sizing, setSizing] = useState<ColumnSizingState>(stored ?? {});
  useResetOnChange([props.prefsKey], () => { if (stored) setSizing(stored); });

  const table = useReactTable({
    data,
    columns,
    getRowId: props.getRowId,
    state: {
      sorting,
      columnSizing: sizing,
      columnVisibility: Object.fromEntries((props.hiddenColumns ?? []).map((c) => [c, false])),
    },
    manualSorting: serverSort,
    sortDescFirst: true,
    enableColumnResizing: true,
    columnResizeMode: 'onChange',
    onColumnSizingChange: (u) => setSizing((s) => (typeof u === 'function' ? u(s) : u)),
    onSortingChange: (u) => {
      const next = typeof u === 'function' ? u(sorting) : u;
      if (serverSort) props.onSortingChange!(next);
      else setLocalSort(next);
    },
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: serverSort ? undefined : getSortedRowModel(),
  });
  const resizing = table.getState().columnSizingInfo.isResizingColumn;
  // Remember widths once a drag ends (not on every pixel).
  useEffect(() => {
    if (!resizing && props.prefsKey && Object.keys(sizing).length) {
      const prev = useUi.getState().columns[props.prefsKey];
      setColumns(props.prefsKey, { ...prev, widths: sizing });
    }
  }, [resizing, sizing, props.prefsKey, setColumns]);
  const rows = table.getRowModel().rows;

  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useWidth(scrollRef);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => rowHeight, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;

  const open = (row: Row<T>) => props.onOpen?.(row.original, row.index);
  useListKeys({ count: rows.length, selected, setSelected, onOpen: (i) => rows[i] && open(rows[i]), enabled: keyboard });
  // The highlighted row is brought into view when the highlight moves (j/k, a click, a new list), not
  // when rows are added: a page appended below (onEndReached) used to scroll the list back to the
  // highlighted row — the first, while the user scrolled with the mouse — so the rows the user had
  // scrolled to were taken away as soon as the next page arrived. `shown` is the index last brought
  // into view; a highlight set before its row is loaded is brought into view when the row arrives, and
  // an emptied table (a new filter or sort loading) brings it into view again once rows come.
  const shown = useRef(-1);
  useEffect(() => {
    if (rows.length === 0) shown.current = -1;
    if (selected === shown.current || selected < 0 || selected >= rows.length) return;
    shown.current = selected;
    virtualizer.scrollToIndex(selected, { align: 'auto' });
  }, [selected, rows.length, virtualizer]);

  const lastIndex = items[items.length - 1]?.index ?? -1;
  const { onEndReached } = props;
  useEffect(() => {
    if (onEndReached && rows.length > 0 && lastIndex >= rows.length - 5) onEndReached();
  }, [lastIndex, rows.length, onEndReached]);

  const leaf = table.getVisibleLeafColumns();
  const colCount = leaf.length;
  // react-table fills in a default size (150) for every column, so read which ones the caller sized (or the user resized).
  const given = new Set(columns.filter((c) => c.size !== undefined).map((c) => c.id ?? (c as { accessorKey?: string }).accessorKey));
  const sized = new Set([...given, ...Object.keys(sizing)]);
  const minOf = (id: string) => (metaOf(leaf.find((c) => c.id === id)).min ?? DEFAULT_MIN);
  // Columns with the caller's starting size shrink together when the table is narrower than their sum.
  const flexMin = leaf.filter((c) => !sized.has(c.id)).reduce((n, c) => n + Math.max(minOf(c.id), FLEX_MIN), 0);
  const userWidths = leaf.filter((c) => c.id in sizing).reduce((n, c) => n + Math.max(minOf(c.id), sizing[c.id]!), 0);
  const shrinking = leaf.filter((c) => given.has(c.id) && !(c.id in sizing)).map((c) => ({ min: minOf(c.id), size: table.getColumn(c.id)!.getSize() }));
  const factor = width > 0 ? shrinkFactor(shrinking, width - flexMin - userWidths) : 1;
  const widthOf = (id: string) => Math.max(minOf(id), id in sizing ? table.getColumn(id)!.getSize() : Math.floor(table.getColumn(id)!.getSize() * factor));
  const minTable = leaf.reduce((n, c) => n + (sized.has(c.id) ? widthOf(c.id) : Math.max(minOf(c.id), FLEX_MIN)), 0);

  /** Double click on a resize handle: the widest rendered content of that column (plus padding). */
  const fit = (id: string) => {
    const el = scrollRef.current;
    if (!el) return;
    const idx = leaf.findIndex((c) => c.id === id);
    let w = 0;
    for (const tr of el.querySelectorAll('tr')) {
      const cell = tr.children[idx] as HTMLElement | undefined;
      if (!cell) continue;
      // The cell's own overflow (several pills), or a clipped child's (a preview with its own ellipsis).
      const inner = cell.firstElementChild as HTMLElement | null;
      w = Math.max(w, cell.scrollWidth + 2, (inner?.scrollWidth ?? 0) + 18);
    }
    if (w > 0) setSizing((s) => ({ ...s, [id]: Math.min(800, Math.max(minOf(id), Math.ceil(w))) }));
  };

  return (
    <div className="dt" ref={scrollRef} data-testid={props.testId}>
      <table style={{ minWidth: minTable }}>
        {/* Widths on <col>: with table-layout fixed, sized columns keep their px and the rest share what is left. */}
        <colgroup>
          {leaf.map((c) => <col key={c.id} style={{ width: sized.has(c.id) ? widthOf(c.id) : undefined }} />)}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id}>
              {hg.headers.map((h) => {
                const meta = metaOf(h.column);
                const dir = h.column.getIsSorted();
                const can = h.column.getCanSort();
                return (
                  <th
                    key={h.id}
                    className={`${can ? 'sortable' : ''} ${dir ? 'sorted' : ''} ${meta.numeric ? 'num' : ''}`}
                    onClick={can ? h.column.getToggleSortingHandler() : undefined}
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : can ? 'none' : undefined}
                    title={can ? 'Sort by this column' : undefined}
                    data-col={h.column.id}
                  >
                    <span className="th-label">{flexRender(h.column.columnDef.header, h.getContext())}</span>
                    {can && <span className="sort-ind" aria-hidden>{dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : '↕'}</span>}
                    <span
                      className={`col-resize ${h.column.getIsResizing() ? 'active' : ''}`}
                      onMouseDown={h.getResizeHandler()}
                      onTouchStart={h.getResizeHandler()}
                      onDoubleClick={(e) => { e.stopPropagation(); fit(h.column.id); }}
                      onClick={(e) => e.stopPropagation()}
                      // A pointer affordance only: kept out of the header's accessible name.
                      aria-hidden
                      title="Drag to resize; double click fits the column to its content"
                      data-testid="col-resize"
                    />
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
                className={`row ${vi.index === selected ? 'selected' : ''} ${props.rowClassName?.(row.original) ?? ''}`}
                style={{ height: rowHeight }}
                data-testid={props.rowTestId?.(row.original)}
                aria-selected={vi.index === selected}
                onClick={() => { setSelected(vi.index); open(row); }}
              >
                {row.getVisibleCells().map((c) => {
                  const meta = metaOf(c.column);
                  return (
                    <td key={c.id} className={meta.numeric ? 'num' : undefined} onMouseEnter={showFullValue} data-col={c.column.id}>
                      {flexRender(c.column.columnDef.cell, c.getContext())}
                    </td>
                  );
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

/**
 * The factor f in [0, 1] for which the columns' widths max(min, size × f) add up to `room`
 * (bisection: each width is monotonic in f). 1 when they fit at their sizes; 0 when even the
 * minimums do not fit (the table then scrolls sideways).
 */
export function shrinkFactor(cols: Array<{ min: number; size: number }>, room: number): number {
  const total = (f: number) => cols.reduce((n, c) => n + Math.max(c.min, Math.floor(c.size * f)), 0);
  if (total(1) <= room) return 1;
  if (total(0) >= room) return 0;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 20; i++) {
    const mid = (lo + hi) / 2;
    if (total(mid) > room) hi = mid;
    else lo = mid;
  }
  return lo;
}

/**
 * A cell whose content is cut (ellipsis) gets its full text as a tooltip when hovered; measured at
 * hover time so the table does no work for cells nobody points at. Cells that set their own title keep it.
 */
function showFullValue(e: React.MouseEvent<HTMLTableCellElement>) {
  const td = e.currentTarget;
  const cut = (el: Element) => el.scrollWidth > el.clientWidth + 1;
  const clipped = cut(td) || [...td.querySelectorAll('*')].some((el) => getComputedStyle(el).textOverflow === 'ellipsis' && cut(el));
  if (clipped && !td.querySelector('[title]')) td.title = (td.innerText || td.textContent || '').trim();
  else if (!clipped && td.title) td.removeAttribute('title');
}
