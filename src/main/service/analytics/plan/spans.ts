/**
 * A `spans.query` request → a SpansListPlan or SpansGroupPlan (domain/plans.ts). The request rules
 * of validate-spans.ts come first, then each part in the order its 422s have always been raised:
 * list — custom columns, time window, `$expr`, sort; group — keys, time window, `$expr`, measures,
 * group filters, sort, distributions.
 */
import { invalid } from '../../../../shared/errors.js';
import { nsFromIso } from '../../../domain/time.js';
import {
  COLUMN_TYPES, CUSTOM_SOURCES, CUSTOM_TYPE, DERIVED_TYPES, GROUPABLE, SORTABLE_LIST, isAddressableKey, isColumn, isCustomSource, isDerived,
  type CustomSource, type GroupableColumn, type SortableListColumn,
} from '../../../domain/catalog.js';
import type { FieldRef } from '../../../domain/expr.js';
import {
  GROUP_TOTALS, type Aggregation, type GroupKeyPlan, type GroupSortRef, type GroupTotal, type ListSortRef, type MeasurePlan, type SpanScope,
  type SpansGroupPlan, type SpansListPlan, type DistributionPlan, type Direction,
} from '../../../domain/plans.js';
import { customRef, parseExpr, type Loc } from './expr.js';
import { scopeScores } from '../../../domain/expr.js';
import { defaultGroupAlias } from '../../../../shared/group-alias.js';
import { validateSpansQuery, type SpansInput } from './validate-spans.js';

type Sort = { field: string; direction: Direction }[] | undefined;

/** The scope every spans plan shares: project, start-time window, `$expr`. */
export function parseScope(q: Pick<SpansInput, 'project_id' | 'started_after' | 'started_before' | 'query'>): SpanScope {
  const time = (field: 'started_after' | 'started_before') => {
    const v = q[field];
    if (v === undefined) return null;
    const ns = nsFromIso(v);
    if (ns === null) throw invalid(field, 'Input should be a valid datetime', v);
    return ns;
  };
  const started_after_ns = time('started_after');
  const started_before_ns = time('started_before');
  return { project_id: q.project_id, started_after_ns, started_before_ns, where: q.query ? scopeScores(parseExpr(q.query, ['query']), q.project_id) : null };
}

/** Parses and validates a spans.query request into its plan. */
export function parseSpansQuery(q: SpansInput): { mode: 'list'; plan: SpansListPlan } | { mode: 'group'; plan: SpansGroupPlan } {
  validateSpansQuery(q);
  if (q.group_by?.length) {
    const plan = parseGroup(q, q.group_by);
    // `$score` inside measure and group filters reads the plan's project too.
    for (const m of [...plan.measures, ...plan.having.map((h) => h.measure)]) scopeScores(m.filter, q.project_id);
    return { mode: 'group', plan };
  }
  return { mode: 'list', plan: parseList(q) };
}

// ---------------------------------------------------------------- list mode

function parseList(q: SpansInput): SpansListPlan {
  const custom = customColumns(q.custom_attr_columns);
  const scope = parseScope(q);
  return {
    ...scope,
    custom_columns: [...custom].map(([source, keys]) => ({ source, keys })),
    include_costs: q.include_costs,
    include_details: q.include_details,
    sort: listSort(q.sort_by, custom),
    limit: q.limit,
    offset: q.offset,
  };
}

/** Which custom keys go into each map of the row; a column without a source looks in all four maps. */
function customColumns(cols: SpansInput['custom_attr_columns']): Map<CustomSource, string[]> {
  const out = new Map<CustomSource, string[]>();
  (cols ?? []).forEach((c, i) => {
    if (!isAddressableKey(c.key)) throw invalid(['custom_attr_columns', i, 'key'], 'custom attribute key must not contain quotes, backslashes or control characters', c.key);
    const sources = c.source === undefined ? [...CUSTOM_SOURCES] : [c.source];
    for (const s of sources) {
      if (!isCustomSource(s)) throw invalid(['custom_attr_columns', i, 'source'], `source must be one of ${CUSTOM_SOURCES.join(', ')}`, c.source);
      out.set(s, [...(out.get(s) ?? []), c.key]);
    }
  });
  return out;
}

function listSort(sort: Sort, custom: Map<CustomSource, string[]>): SpansListPlan['sort'] {
  if (!sort?.length) return [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }];
  return sort.map((s, i) => {
    const m = /^(custom_attrs_(?:string|int|float|bool))\.(.+)$/s.exec(s.field);
    let ref: ListSortRef;
    if (m && custom.get(m[1] as CustomSource)?.includes(m[2]!)) ref = { kind: 'custom', source: m[1] as CustomSource, key: m[2]! };
    else if ((SORTABLE_LIST as readonly string[]).includes(s.field)) ref = { kind: 'column', column: s.field as SortableListColumn };
    else {
      throw invalid(['sort_by', i, 'field'], `cannot sort by '${s.field}'; allowed: ${SORTABLE_LIST.join(', ')} or custom_attrs_<type>.<key> of a requested custom_attr_columns entry`, s.field);
    }
    return { ref, direction: s.direction };
  });
}

// ---------------------------------------------------------------- group mode

type GroupBy = NonNullable<SpansInput['group_by']>;
type MeasureIn = { alias?: string; aggregation?: Aggregation; value?: { key: string; source: string }; filter?: { $expr: Record<string, unknown> } };

function parseGroup(q: SpansInput, groupBy: GroupBy): SpansGroupPlan {
  const keys = groupKeys(groupBy);
  const scope = parseScope(q);
  const measures = (q.measures ?? []).map((m, i) => ({ alias: m.alias, ...parseMeasure(m, ['measures', i]) }));
  const having = (q.group_filters ?? []).map((gf, i) => {
    const same = !gf.group_by || (gf.group_by.length === groupBy.length && gf.group_by.every((x, j) => x.key === groupBy[j]!.key && x.source === groupBy[j]!.source));
    if (!same) throw invalid(['group_filters', i, 'group_by'], 'a group filter is computed per group of the query: its group_by must equal group_by');
    if (gf.min === undefined && gf.max === undefined) throw invalid(['group_filters', i], 'a group filter needs min, max or both');
    if (gf.min !== undefined && gf.max !== undefined && gf.max < gf.min) throw invalid(['group_filters', i, 'max'], 'max must be at least min', gf.max);
    const named = q.measures?.findIndex((m) => m.alias === gf.measure.alias) ?? -1;
    const onlyAlias = !gf.measure.value && !gf.measure.filter && !gf.measure.aggregation;
    if (onlyAlias && named < 0 && gf.measure.alias !== undefined) {
      throw invalid(['group_filters', i, 'measure', 'alias'], `no measure named '${gf.measure.alias}': name one of measures or give aggregation/value`, gf.measure.alias);
    }
    const { alias: _a, ...measure } = named >= 0 && onlyAlias ? measures[named]! : { alias: '', ...parseMeasure(gf.measure, ['group_filters', i, 'measure']) };
    return { measure, min: gf.min ?? null, max: gf.max ?? null };
  });
  const sort = groupSort(q.sort_by, keys, measures, q.include_costs);
  const distributions = (q.group_distributions ?? []).map((d, i) => parseDistribution(d, i));
  const only = groupBy.length === 1 ? groupBy[0]! : null;
  return {
    ...scope,
    keys,
    measures,
    having,
    distributions,
    include_costs: q.include_costs,
    previews: only !== null && only.source === 'field' && only.key === 'conversation_id',
    sort,
    limit: q.limit,
    offset: q.offset,
  };
}

function groupKeys(refs: GroupBy): GroupKeyPlan[] {
  return refs.map((g, i) => {
    const loc = ['group_by', i];
    const alias = g.alias ?? defaultGroupAlias(g.key);
    if (g.source === 'field') {
      if (!(GROUPABLE as readonly string[]).includes(g.key)) throw invalid([...loc, 'key'], `cannot group by '${g.key}'; allowed: ${GROUPABLE.join(', ')}`, g.key);
      const column = g.key as GroupableColumn;
      return { alias, ref: { kind: 'column', column }, type: COLUMN_TYPES[column] };
    }
    if (!isCustomSource(g.source)) throw invalid([...loc, 'source'], 'source must be field or custom_attrs_<type>', g.source);
    const c = customRef(g.source, g.key, [...loc, 'key']);
    return { alias, ref: { kind: 'custom', source: g.source, key: g.key }, type: c.type };
  });
}

/** A measure's value reference: a derived value, any column, or a custom attribute. */
function valueRef(v: { key: string; source: string }, loc: Loc): FieldRef {
  if (v.source === 'derived') {
    if (!isDerived(v.key)) throw invalid([...loc, 'key'], `unknown derived value '${v.key}'; allowed: ${Object.keys(DERIVED_TYPES).join(', ')}`, v.key);
    return { kind: 'derived', name: v.key, type: DERIVED_TYPES[v.key] };
  }
  if (v.source === 'field') {
    if (!isColumn(v.key)) throw invalid([...loc, 'key'], `unknown field '${v.key}'`, v.key);
    return { kind: 'column', column: v.key, type: COLUMN_TYPES[v.key] };
  }
  if (isCustomSource(v.source)) return customRef(v.source, v.key, [...loc, 'key']);
  throw invalid([...loc, 'source'], `source must be field, derived or custom_attrs_<type>`, v.source);
}

function parseMeasure(m: MeasureIn, loc: Loc): MeasurePlan {
  const aggregation = m.aggregation ?? (m.value ? 'sum' : 'count');
  const filter = m.filter ? parseExpr(m.filter, [...loc, 'filter']) : null;
  if (!m.value) {
    if (aggregation !== 'count') throw invalid([...loc, 'value'], `aggregation '${aggregation}' needs a value; only count may omit it`);
    return { aggregation, value: null, filter };
  }
  const value = valueRef(m.value, [...loc, 'value']);
  if ((aggregation === 'sum' || aggregation === 'avg') && value.type === 'string') {
    throw invalid([...loc, 'aggregation'], `cannot ${aggregation} the text value '${m.value.key}'`, aggregation);
  }
  return { aggregation, value, filter };
}

type SortPart = SpansGroupPlan['sort'][number];

function groupSort(sort: Sort, keys: GroupKeyPlan[], measures: { alias: string }[], includeCosts: boolean): SpansGroupPlan['sort'] {
  const tie = keys.map((_, index): SortPart => ({ ref: { kind: 'key', index }, direction: 'asc' }));
  if (!sort?.length) {
    const first: GroupSortRef = measures.length ? { kind: 'measure', index: 0 } : { kind: 'total', total: 'last_seen' };
    return [{ ref: first, direction: 'desc' }, ...tie];
  }
  const totals = GROUP_TOTALS.filter((f) => includeCosts || !f.includes('cost'));
  const parts = sort.map((s, i): SortPart => {
    const k = keys.findIndex((g) => g.alias === s.field);
    if (k >= 0) return { ref: { kind: 'key', index: k }, direction: s.direction };
    const m = measures.findIndex((x) => x.alias === s.field);
    if (m >= 0) return { ref: { kind: 'measure', index: m }, direction: s.direction };
    if ((totals as readonly string[]).includes(s.field)) return { ref: { kind: 'total', total: s.field as GroupTotal }, direction: s.direction };
    const allowed = [...keys.map((g) => g.alias), ...measures.map((x) => x.alias), ...totals];
    throw invalid(['sort_by', i, 'field'], `cannot sort groups by '${s.field}'; allowed: ${allowed.join(', ')}`, s.field);
  });
  return [...parts, ...tie];
}

function parseDistribution(d: NonNullable<SpansInput['group_distributions']>[number], i: number): DistributionPlan {
  if (!isCustomSource(d.value.source)) {
    throw invalid(['group_distributions', i, 'value', 'source'], 'distributions are computed over custom attribute values: source must be custom_attrs_<type>', d.value.source);
  }
  customRef(d.value.source, d.value.key, ['group_distributions', i, 'value', 'key']);
  return { alias: d.alias, source: d.value.source, key: d.value.key, type: CUSTOM_TYPE[d.value.source], bins: d.bins, top_n: d.top_n };
}
