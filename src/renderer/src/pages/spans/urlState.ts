/**
 * The explorer's filter lives in the URL so every view is a deep link: `?agent_name=triage` (or any
 * other span field name) adds an equality condition — that is how Agents links here — and
 * `f` (conditions as JSON), `expr` (raw `$expr` text), `q` (the text search), `after`, `before`,
 * `mode=group` round-trip; in group mode `g` holds the applied grouping (keys, measures, group
 * filters, distributions as JSON) and `sort` the group order (`alias:desc,other:asc`), so a reload or
 * a shared link opens the same groups (issue 22.10).
 */
import type { SortingState } from '@tanstack/react-table';
import type { FilterState } from './FilterBar';
import type { FilterRow } from './expr';
import { specFromParam, specParam, type GroupSpec } from './groupModel';

const SHORTCUT_FIELDS = ['agent_name', 'trace_id', 'conversation_id', 'request_model', 'operation_name', 'tool_name', 'status_code'];

export function filterFromParams(params: URLSearchParams): FilterState {
  let rows: FilterRow[] = [];
  const f = params.get('f');
  if (f) {
    try {
      const parsed = JSON.parse(f) as unknown;
      if (Array.isArray(parsed)) rows = parsed.filter((r): r is FilterRow => !!r && typeof r === 'object' && typeof (r as FilterRow).field === 'string');
    } catch {
      rows = [];
    }
  }
  for (const field of SHORTCUT_FIELDS) {
    const v = params.get(field);
    if (v !== null && !rows.some((r) => r.field === field && r.op === 'eq' && r.value === v)) rows.push({ field, op: 'eq', value: v });
  }
  return { rows, text: params.get('expr') ?? '', search: params.get('q') ?? '', after: params.get('after') ?? '', before: params.get('before') ?? '' };
}

/** What group mode shows, as the link keeps it. */
export interface GroupState { spec: GroupSpec | null; sorting: SortingState }

export function groupFromParams(params: URLSearchParams): GroupState {
  const sorting = (params.get('sort') ?? '')
    .split(',')
    .map((s) => /^([A-Za-z_][A-Za-z0-9_:.]*):(asc|desc)$/.exec(s.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ id: m[1]!, desc: m[2] === 'desc' }));
  return { spec: specFromParam(params.get('g')), sorting };
}

export function paramsFromFilter(state: FilterState, mode: 'list' | 'group', group?: GroupState): URLSearchParams {
  const p = new URLSearchParams();
  if (state.rows.length) p.set('f', JSON.stringify(state.rows));
  if (state.text.trim()) p.set('expr', state.text);
  if (state.search.trim()) p.set('q', state.search);
  if (state.after) p.set('after', state.after);
  if (state.before) p.set('before', state.before);
  if (mode === 'group') {
    p.set('mode', 'group');
    if (group?.spec) p.set('g', specParam(group.spec));
    if (group?.sorting.length) p.set('sort', group.sorting.map((s) => `${s.id}:${s.desc ? 'desc' : 'asc'}`).join(','));
  }
  return p;
}
