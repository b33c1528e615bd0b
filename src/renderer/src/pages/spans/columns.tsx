/**
 * Column definitions of the spans list: every span-row field of interface.md (most hidden until
 * chosen), a derived duration, and the user's custom attribute columns. `sortable` follows the
 * server's whitelist (semantics §7) so a header click never produces a 422.
 */
import { createColumnHelper } from '@tanstack/react-table';
import type { AnyColumn } from '../../components/DataTable';
import { fmtCost, fmtDuration, fmtTimeShort, fmtTokens } from '../../components/format';
import type { OpOutput } from '../../../../shared/contract/index';
import { customColumnId, type CustomColumn } from './spansStore';
import { textOf } from '../../../../shared/text';

/** The contract builds most scalar fields with Object.fromEntries, so their names are not in the type: add the ones used here. */
export type SpanRow = OpOutput<'spans.query'>['spans'][number] & {
  trace_id: string | null;
  span_id: string | null;
  [field: string]: unknown;
};
const col = createColumnHelper<SpanRow>();

/** Sortable list-mode fields (§7). */
export const SORTABLE = new Set([
  'operation_name', 'provider_name', 'agent_name', 'agent_version', 'request_model', 'response_model', 'tool_name', 'tool_type',
  'conversation_id', 'status_code', 'error_type', 'span_kind', 'trace_id', 'span_id', 'svc_run_id', 'span_name', 'started_at', 'ended_at',
  'input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens',
  'input_cost_usd', 'output_cost_usd', 'total_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd',
  'output_type', 'request_temperature', 'request_max_tokens', 'request_top_p', 'svc_run_step', 'server_address',
]);

export const DEFAULT_VISIBLE = ['started_at', 'span_name', 'operation_name', 'agent_name', 'request_model', 'status_code', 'duration', 'input_tokens', 'output_tokens', 'total_cost_usd', 'trace_id'];

const TOKEN_COLS = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'];
const COST_COLS = ['total_cost_usd', 'input_cost_usd', 'output_cost_usd', 'cache_creation_cost_usd', 'cache_read_cost_usd'];
const TIME_COLS = ['started_at', 'ended_at'];
/** Every other scalar field of a span row, in a readable order. */
const OTHER_COLS = [
  'span_name', 'operation_name', 'agent_name', 'agent_version', 'agent_id', 'agent_description', 'status_code', 'status_message', 'error_type',
  'span_kind', 'provider_name', 'request_model', 'response_model', 'response_id', 'tool_name', 'tool_type', 'tool_call_id', 'tool_description',
  'conversation_id', 'conversation_name', 'trace_id', 'span_id', 'parent_span_id', 'output_type', 'server_address', 'server_port',
  'request_temperature', 'request_top_p', 'request_max_tokens', 'request_seed', 'request_choice_count', 'request_frequency_penalty',
  'request_presence_penalty', 'svc_run_id', 'svc_run_step', 'svc_run_step_end', 'svc_user_id', 'compaction_items_before', 'compaction_items_after',
  'finish_reasons',
];

/**
 * Starting width and smallest width (px) of the columns shown by default, so the default set fits a
 * 1440 window at these widths and a 1024 one shrunk toward the minimums (issue 22.10: unsized columns
 * took 160 px each and pushed Started, Duration and Cost off screen). Other columns share what is left.
 */
const WIDTHS: Record<string, { size: number; min: number }> = {
  span_name: { size: 200, min: 80 },
  operation_name: { size: 110, min: 60 },
  agent_name: { size: 120, min: 60 },
  request_model: { size: 150, min: 70 },
  status_code: { size: 80, min: 68 },
  trace_id: { size: 120, min: 60 },
};

export const LABELS: Record<string, string> = {
  started_at: 'Started', ended_at: 'Ended', span_name: 'Span', duration: 'Duration', total_cost_usd: 'Cost',
  // Short headers for the default columns, so they read whole at 1024 (the field name is the header's title).
  operation_name: 'Operation', agent_name: 'Agent', request_model: 'Model', status_code: 'Status', input_tokens: 'In tok', output_tokens: 'Out tok', trace_id: 'Trace',
};
export const label = (id: string): string => LABELS[id] ?? id;

function durationMs(r: SpanRow): number | null {
  if (!r.started_at || !r.ended_at) return null;
  return Date.parse(r.ended_at) - Date.parse(r.started_at) + (Number(r.ended_at.slice(23, 26) || 0) - Number(r.started_at.slice(23, 26) || 0)) / 1000;
}

function show(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (Array.isArray(v)) return v.join(', ');
  return textOf(v);
}

export function spanColumns(custom: CustomColumn[]): AnyColumn<SpanRow>[] {
  const cols: AnyColumn<SpanRow>[] = [];
  for (const id of TIME_COLS) cols.push(col.accessor((r) => r[id] as string | null, { id, header: label(id), cell: (c) => <span title={c.getValue() ?? undefined}>{fmtTimeShort(c.getValue())}</span>, enableSorting: true, size: 150, meta: { min: 96 } }));
  cols.push(col.accessor(durationMs, { id: 'duration', header: 'Duration', meta: { numeric: true, min: 72 }, size: 85, cell: (c) => fmtDuration(c.getValue()), enableSorting: false }));
  for (const id of OTHER_COLS) {
    const w = WIDTHS[id];
    cols.push(col.accessor((r) => r[id], { id, header: label(id), cell: (c) => <span className={id.endsWith('_id') ? 'mono' : undefined}>{show(c.getValue())}</span>, enableSorting: SORTABLE.has(id), ...(w ? { size: w.size, meta: { min: w.min } } : {}) }));
  }
  for (const id of TOKEN_COLS) cols.push(col.accessor((r) => r[id] as number | null, { id, header: label(id), meta: { numeric: true, min: 60 }, cell: (c) => fmtTokens(c.getValue()), enableSorting: true, size: 95 }));
  for (const id of COST_COLS) cols.push(col.accessor((r) => r[id] as number | null, { id, header: label(id), meta: { numeric: true, min: 94 }, cell: (c) => fmtCost(c.getValue()), enableSorting: true, size: 100 }));
  for (const c of custom) {
    const id = customColumnId(c);
    cols.push(
      col.accessor((r) => (r[c.source] as Record<string, unknown> | undefined)?.[c.key], {
        id,
        header: `${c.key} (${c.source.replace('custom_attrs_', '')})`,
        meta: { numeric: c.source === 'custom_attrs_int' || c.source === 'custom_attrs_float' },
        cell: (v) => show(v.getValue()),
        enableSorting: true,
      }),
    );
  }
  return cols;
}

/** Every column id in default order (for the chooser). */
export const allColumnIds = (custom: CustomColumn[]): string[] => spanColumns(custom).map((c) => c.id!);
