/**
 * The group-by builder: group keys (span fields or custom attributes), measures (aggregation over a
 * field, derived value or custom attribute, with an optional `$expr` filter; a key may also be a
 * score's name, source 'score', issue 20), group filters (min/max
 * on a measure) and distributions (custom attribute values; only with exactly one key, §7).
 */
import { AGGREGATIONS, DERIVED_KEYS, GROUP_FIELDS, isAlias, type Aggregation, type Distribution, type GroupSpec, type KeySource, type Measure, type ValueSource } from './groupModel';
import { parseExprText } from './expr';

const KEY_SOURCES: KeySource[] = ['field', 'score', 'custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'];
const VALUE_SOURCES: ValueSource[] = ['derived', 'field', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_string', 'custom_attrs_bool'];
const CUSTOM_SOURCES: Distribution['value']['source'][] = ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'];
const short = (s: string) => s.replace('custom_attrs_', 'attr ');

function MeasureEditor({ m, onChange, testId }: { m: Measure; onChange(m: Measure): void; testId?: string }) {
  const filterText = m.filter ? JSON.stringify(m.filter) : '';
  return (
    <span className="measure-editor" data-testid={testId}>
      <input value={m.alias} onChange={(e) => onChange({ ...m, alias: e.target.value })} placeholder="alias" aria-label="Measure alias" aria-invalid={!isAlias(m.alias)} size={12} />
      =
      <select value={m.aggregation} onChange={(e) => onChange({ ...m, aggregation: e.target.value as Aggregation })} aria-label="Aggregation">
        {AGGREGATIONS.map((a) => <option key={a}>{a}</option>)}
      </select>
      (
      <select value={m.value?.source ?? 'derived'} onChange={(e) => onChange({ ...m, value: { source: e.target.value as ValueSource, key: m.value?.key ?? '' } })} aria-label="Value source">
        {VALUE_SOURCES.map((s) => <option key={s} value={s}>{short(s)}</option>)}
      </select>
      <input
        list={(m.value?.source ?? 'derived') === 'derived' ? 'loupe-derived-keys' : (m.value?.source ?? '') === 'field' ? 'loupe-group-fields' : undefined}
        value={m.value?.key ?? ''}
        onChange={(e) => onChange({ ...m, value: { source: m.value?.source ?? 'derived', key: e.target.value } })}
        placeholder={m.aggregation === 'count' ? '(all spans)' : 'value key'}
        aria-label="Value key"
        size={14}
      />
      )
      <input
        className="mono"
        defaultValue={filterText}
        key={filterText}
        placeholder='where {"$expr":…}'
        aria-label="Measure filter"
        size={18}
        onBlur={(e) => {
          const p = parseExprText(e.target.value);
          if (!p.error) onChange({ ...m, filter: p.expr });
        }}
      />
    </span>
  );
}

export function GroupBuilder({ spec, onChange, scoreNames = [] }: { spec: GroupSpec; onChange(s: GroupSpec): void; scoreNames?: readonly string[] }) {
  const set = <K extends keyof GroupSpec>(k: K, v: GroupSpec[K]) => onChange({ ...spec, [k]: v });
  const oneKey = spec.keys.filter((k) => k.key.trim()).length === 1;
  return (
    <div className="group-builder" data-testid="group-builder">
      <datalist id="loupe-group-fields">{GROUP_FIELDS.map((f) => <option key={f} value={f} />)}</datalist>
      <datalist id="loupe-derived-keys">{DERIVED_KEYS.map((f) => <option key={f} value={f} />)}</datalist>
      <datalist id="loupe-score-names">{scoreNames.map((f) => <option key={f} value={f} />)}</datalist>

      <div className="gb-section">
        <span className="section-label">Group by</span>
        {spec.keys.map((k, i) => (
          <span key={i} className="gb-chip" data-testid="group-key">
            <select value={k.source} onChange={(e) => set('keys', spec.keys.map((x, j) => (j === i ? { ...x, source: e.target.value as KeySource } : x)))} aria-label="Key source">
              {KEY_SOURCES.map((s) => <option key={s} value={s}>{short(s)}</option>)}
            </select>
            <input list={k.source === 'field' ? 'loupe-group-fields' : k.source === 'score' ? 'loupe-score-names' : undefined} value={k.key} onChange={(e) => set('keys', spec.keys.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))} aria-label="Group key" size={16} data-testid="group-key-input" />
            <button onClick={() => set('keys', spec.keys.filter((_, j) => j !== i))} title="Remove key">×</button>
          </span>
        ))}
        <button onClick={() => set('keys', [...spec.keys, { source: 'field', key: '' }])} data-testid="add-key">+ Key</button>
      </div>

      <div className="gb-section">
        <span className="section-label">Measures</span>
        {spec.measures.map((m, i) => (
          <span key={i} className="gb-chip">
            <MeasureEditor m={m} testId="measure" onChange={(nm) => set('measures', spec.measures.map((x, j) => (j === i ? nm : x)))} />
            <button onClick={() => set('measures', spec.measures.filter((_, j) => j !== i))} title="Remove measure">×</button>
          </span>
        ))}
        <button onClick={() => set('measures', [...spec.measures, { alias: `m${spec.measures.length + 1}`, aggregation: 'sum', value: { source: 'derived', key: 'total_tokens' } }])} data-testid="add-measure">+ Measure</button>
      </div>

      <div className="gb-section">
        <span className="section-label">Keep groups where</span>
        {spec.filters.map((f, i) => (
          <span key={i} className="gb-chip" data-testid="group-filter">
            <MeasureEditor m={f.measure} onChange={(nm) => set('filters', spec.filters.map((x, j) => (j === i ? { ...x, measure: nm } : x)))} />
            between
            <input type="number" value={f.min ?? ''} placeholder="min" size={6} aria-label="Minimum" onChange={(e) => set('filters', spec.filters.map((x, j) => (j === i ? { ...x, min: e.target.value === '' ? undefined : Number(e.target.value) } : x)))} />
            and
            <input type="number" value={f.max ?? ''} placeholder="max" size={6} aria-label="Maximum" onChange={(e) => set('filters', spec.filters.map((x, j) => (j === i ? { ...x, max: e.target.value === '' ? undefined : Number(e.target.value) } : x)))} />
            <button onClick={() => set('filters', spec.filters.filter((_, j) => j !== i))} title="Remove group filter">×</button>
          </span>
        ))}
        <button onClick={() => set('filters', [...spec.filters, { measure: { alias: 'f', aggregation: 'count' }, min: 1 }])} data-testid="add-group-filter">+ Group filter</button>
      </div>

      <div className="gb-section">
        <span className="section-label">Distributions</span>
        {!oneKey && <span className="faint">(need exactly one group key)</span>}
        {spec.distributions.map((d, i) => (
          <span key={i} className="gb-chip" data-testid="distribution">
            <input value={d.alias} onChange={(e) => set('distributions', spec.distributions.map((x, j) => (j === i ? { ...x, alias: e.target.value } : x)))} aria-label="Distribution alias" size={10} aria-invalid={!isAlias(d.alias)} />
            of
            <select value={d.value.source} onChange={(e) => set('distributions', spec.distributions.map((x, j) => (j === i ? { ...x, value: { ...x.value, source: e.target.value as Distribution['value']['source'] } } : x)))} aria-label="Distribution source">
              {CUSTOM_SOURCES.map((s) => <option key={s} value={s}>{short(s)}</option>)}
            </select>
            <input value={d.value.key} onChange={(e) => set('distributions', spec.distributions.map((x, j) => (j === i ? { ...x, value: { ...x.value, key: e.target.value } } : x)))} placeholder="attribute key" aria-label="Distribution key" size={14} data-testid="distribution-key" />
            {d.value.source === 'custom_attrs_string' || d.value.source === 'custom_attrs_bool' ? (
              <label>top <input type="number" min={1} max={20} value={d.top_n ?? 5} onChange={(e) => set('distributions', spec.distributions.map((x, j) => (j === i ? { ...x, top_n: Number(e.target.value) } : x)))} style={{ width: 48 }} /></label>
            ) : (
              <label>bins <input type="number" min={1} max={50} value={d.bins ?? 12} onChange={(e) => set('distributions', spec.distributions.map((x, j) => (j === i ? { ...x, bins: Number(e.target.value) } : x)))} style={{ width: 48 }} /></label>
            )}
            <button onClick={() => set('distributions', spec.distributions.filter((_, j) => j !== i))} title="Remove distribution">×</button>
          </span>
        ))}
        <button disabled={!oneKey} onClick={() => set('distributions', [...spec.distributions, { alias: `d${spec.distributions.length + 1}`, value: { source: 'custom_attrs_int', key: '' } }])} data-testid="add-distribution">+ Distribution</button>
      </div>
    </div>
  );
}
