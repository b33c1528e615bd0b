/**
 * The filter builder: rows of (field, operator, value) that all must hold, turned into `$expr`
 * (expr.ts), and a text box that shows that expression and accepts any `$expr` JSON typed or pasted
 * (it then replaces the rows until cleared). Plus a text search over message text and attribute
 * values (the full-text `$search` operator, ANDed with the rest) and the started_after/started_before
 * time range.
 */
import { useEffect, useState } from 'react';
import { FILTER_OPS, exprFromRows, parseExprText, scoreField, type FilterOp, type FilterRow } from './expr';
import { PRESETS, toIso, toLocalInput } from './timeRange';
import { useResetOnChange } from '../../hooks/reset';
import { useLatest } from '../../hooks/latest';

export const FILTER_FIELDS = [
  'agent_name', 'operation_name', 'span_name', 'request_model', 'response_model', 'provider_name', 'status_code', 'error_type', 'tool_name',
  'conversation_id', 'trace_id', 'span_id', 'span_kind', 'agent_version', 'svc_run_id', 'svc_user_id', 'duration_ms', 'total_tokens',
  'input_tokens', 'output_tokens', 'total_cost_usd', 'gen_ai.agent.name',
];

export interface FilterState {
  rows: FilterRow[];
  /** Raw `$expr` JSON from the text box; when set and valid it wins over the rows. */
  text: string;
  /** Words searched in what spans said and carry (`$search`); ANDed with the conditions. */
  search: string;
  after: string;
  before: string;
}

/** `scoreNames`: the project's score names, offered as `$score.<name>` fields (issue 20). */
export function FilterBar({ state, onChange, scoreNames = [] }: { state: FilterState; onChange(s: FilterState): void; scoreNames?: readonly string[] }) {
  const [showJson, setShowJson] = useState(state.text.trim() !== '');
  const parsed = parseExprText(state.text);
  const fromRows = exprFromRows(state.rows);
  const setRow = (i: number, patch: Partial<FilterRow>) => onChange({ ...state, rows: state.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const usingText = state.text.trim() !== '';

  return (
    <div className="filter-bar" data-testid="filter-bar">
      <SearchBox value={state.search} onChange={(search) => onChange({ ...state, search })} />
      <datalist id="loupe-filter-fields">{[...FILTER_FIELDS, ...scoreNames.map(scoreField)].map((f) => <option key={f} value={f} />)}</datalist>
      <div className="filter-rows" aria-disabled={usingText}>
        {state.rows.map((r, i) => (
          <div className="filter-row" key={i} data-testid="filter-row">
            <input list="loupe-filter-fields" value={r.field} placeholder="field, custom_attrs_string.key or $score.name" onChange={(e) => setRow(i, { field: e.target.value })} aria-label="Filter field" disabled={usingText} />
            <select value={r.op} onChange={(e) => setRow(i, { op: e.target.value as FilterOp })} aria-label="Operator" disabled={usingText}>
              {FILTER_OPS.map((o) => <option key={o.op} value={o.op}>{o.label}</option>)}
            </select>
            {r.op !== 'is_null' && r.op !== 'not_null' && (
              <input value={r.value} placeholder={r.op === 'in' ? 'a, b, c' : 'value'} onChange={(e) => setRow(i, { value: e.target.value })} aria-label="Filter value" disabled={usingText} />
            )}
            <button title="Remove this condition" onClick={() => onChange({ ...state, rows: state.rows.filter((_, j) => j !== i) })}>×</button>
          </div>
        ))}
        <button onClick={() => onChange({ ...state, rows: [...state.rows, { field: '', op: 'eq', value: '' }] })} disabled={usingText} data-testid="add-filter">+ Condition</button>
        <button className={showJson ? 'active' : ''} onClick={() => setShowJson((v) => !v)}>{'{ } $expr'}</button>
      </div>
      <div className="time-range">
        <label>From <input type="datetime-local" value={state.after} onChange={(e) => onChange({ ...state, after: e.target.value })} aria-label="Started after" /></label>
        <label>to <input type="datetime-local" value={state.before} onChange={(e) => onChange({ ...state, before: e.target.value })} aria-label="Started before" /></label>
        {PRESETS.map((p) => (
          <button key={p.label} onClick={() => onChange({ ...state, after: toLocalInput(new Date(Date.now() - p.ms).toISOString()), before: '' })}>{p.label}</button>
        ))}
        {(state.after || state.before) && <button onClick={() => onChange({ ...state, after: '', before: '' })}>All time</button>}
        {state.after && !toIso(state.after) && <span className="error-text">bad start time</span>}
      </div>
      {showJson && (
        <div className="expr-box">
          <textarea
            rows={4}
            className="mono"
            data-testid="expr-text"
            placeholder={JSON.stringify(fromRows ?? { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: 'triage' }] } })}
            value={state.text}
            onChange={(e) => onChange({ ...state, text: e.target.value })}
            aria-label="$expr JSON"
          />
          <div className="muted">
            {parsed.error ? <span className="error-text" role="alert">{parsed.error}</span> : usingText ? 'This expression replaces the conditions above (clear it to use them again).' : 'Conditions above as $expr:'}
          </div>
          {!usingText && fromRows && <pre className="mono expr-preview" data-testid="expr-preview">{JSON.stringify(fromRows)}</pre>}
        </div>
      )}
    </div>
  );
}

/** The filter part of a spans.query body; `error` when the JSON text is invalid (nothing is sent then). */
export function filterRequestPart(state: FilterState): { part: Record<string, unknown>; error?: string } {
  const part: Record<string, unknown> = {};
  const parsed = parseExprText(state.text);
  if (parsed.error) return { part, error: parsed.error };
  const base = parsed.expr ?? exprFromRows(state.rows);
  const search = state.search.trim();
  const query = search ? { $expr: base ? { $and: [base.$expr, { $search: search }] } : { $search: search } } : base;
  if (query) part.query = query;
  const after = toIso(state.after);
  const before = toIso(state.before);
  if (after) part.started_after = after;
  if (before) part.started_before = before;
  return { part };
}

/** The search box, debounced so each keystroke is not a query; `/` focuses it. */
function SearchBox({ value, onChange }: { value: string; onChange(v: string): void }) {
  const [text, setText] = useState(value);
  useResetOnChange([value], () => setText(value));
  // Only typing restarts the wait; the latest value and callback are read when it fires.
  const latest = useLatest({ value, onChange });
  useEffect(() => {
    if (text === latest.current.value) return;
    const t = setTimeout(() => latest.current.onChange(text), 300);
    return () => clearTimeout(t);
  }, [text, latest]);
  return (
    <input
      data-search
      type="search"
      className="spans-search"
      placeholder="Search what spans said and carry: messages, tool arguments and results, attributes (/)"
      aria-label="Search spans"
      data-testid="spans-search"
      value={text}
      onChange={(e) => setText(e.target.value)}
    />
  );
}
