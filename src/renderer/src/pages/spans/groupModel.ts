/**
 * The group-by builder's model (keys, measures, group filters, distributions) and the spans query
 * request it produces (semantics §7, group mode). Kept pure so the request the page sends can be
 * rebuilt exactly — the e2e test posts the same request to /agents/spans/query and compares numbers.
 */
import type { Expr } from './expr';
import { ALIAS_PATTERN, defaultGroupAlias } from '../../../../shared/group-alias';

export type ValueSource = 'field' | 'derived' | 'custom_attrs_string' | 'custom_attrs_int' | 'custom_attrs_float' | 'custom_attrs_bool';
/** 'score': group by the value (or label) of a score of that name on the span, its turn or conversation (issue 20). */
export type KeySource = 'field' | 'score' | 'custom_attrs_string' | 'custom_attrs_int' | 'custom_attrs_float' | 'custom_attrs_bool';
export type Aggregation = 'sum' | 'avg' | 'min' | 'max' | 'count' | 'count_distinct' | 'count_true' | 'count_false';

export const AGGREGATIONS: Aggregation[] = ['count', 'sum', 'avg', 'min', 'max', 'count_distinct', 'count_true', 'count_false'];
export const DERIVED_KEYS = ['duration_ms', 'total_tokens', 'is_error', 'is_invocation', 'total_cost_usd'];
/** Field keys a group may be keyed by (§7: filterable columns plus agent_id, tool_call_id, svc_user_id). */
export const GROUP_FIELDS = [
  'agent_name', 'agent_version', 'operation_name', 'provider_name', 'request_model', 'response_model', 'tool_name', 'tool_type',
  'conversation_id', 'status_code', 'error_type', 'span_kind', 'trace_id', 'span_id', 'svc_run_id', 'agent_id', 'tool_call_id', 'svc_user_id',
];

export interface GroupKey { source: KeySource; key: string; alias?: string }
export interface Measure { alias: string; aggregation: Aggregation; value?: { source: ValueSource; key: string }; filter?: Expr }
export interface GroupFilter { measure: Measure; min?: number; max?: number }
export interface Distribution { alias: string; value: { source: Exclude<KeySource, 'field' | 'score'>; key: string }; bins?: number; top_n?: number }

export interface GroupSpec {
  keys: GroupKey[];
  measures: Measure[];
  filters: GroupFilter[];
  distributions: Distribution[];
}

export const emptyGroupSpec = (): GroupSpec => ({ keys: [], measures: [], filters: [], distributions: [] });

/** Valid alias per §7: identifier-shaped. */
export const isAlias = (s: string): boolean => ALIAS_PATTERN.test(s);

function cleanMeasure(m: Measure): Measure {
  const out: Measure = { alias: m.alias, aggregation: m.aggregation };
  if (m.value && (m.aggregation !== 'count' || m.value.key)) out.value = m.value;
  if (m.filter) out.filter = m.filter;
  return out;
}

/** The group-mode part of a spans.query body; empty object when no key is chosen (list mode). */
export function groupRequestPart(spec: GroupSpec): Record<string, unknown> {
  const keys = spec.keys.filter((k) => k.key.trim());
  if (keys.length === 0) return {};
  const part: Record<string, unknown> = {
    group_by: keys.map((k) => ({ source: k.source, key: k.key, alias: k.alias?.trim() || defaultGroupAlias(k.key) })),
  };
  const measures = spec.measures.filter((m) => isAlias(m.alias));
  if (measures.length) part.measures = measures.map(cleanMeasure);
  const filters = spec.filters.filter((f) => isAlias(f.measure.alias) && (f.min !== undefined || f.max !== undefined));
  if (filters.length) {
    part.group_filters = filters.map((f) => ({
      measure: cleanMeasure(f.measure),
      ...(f.min !== undefined ? { min: f.min } : {}),
      ...(f.max !== undefined ? { max: f.max } : {}),
    }));
  }
  // Distributions need exactly one group key (§7); the builder disables them otherwise.
  const dists = keys.length === 1 ? spec.distributions.filter((d) => isAlias(d.alias) && d.value.key.trim()) : [];
  if (dists.length) part.group_distributions = dists;
  return part;
}

const KEY_SOURCE_SET = new Set<string>(['field', 'score', 'custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const CUSTOM_SOURCE_SET = new Set<string>(['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool']);
const VALUE_SOURCE_SET = new Set<string>(['field', 'derived', ...CUSTOM_SOURCE_SET]);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const numOrUndef = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function measureOf(v: unknown): Measure | null {
  if (!isObj(v) || !AGGREGATIONS.includes(v.aggregation as Aggregation)) return null;
  const m: Measure = { alias: str(v.alias), aggregation: v.aggregation as Aggregation };
  if (isObj(v.value) && VALUE_SOURCE_SET.has(str(v.value.source))) m.value = { source: v.value.source as ValueSource, key: str(v.value.key) };
  if (isObj(v.filter) && isObj(v.filter.$expr)) m.filter = { $expr: v.filter.$expr };
  return m;
}

/**
 * The grouping a link carries (`?mode=group&g=…`, the spec as JSON), read leniently: parts that do
 * not have the spec's shape are dropped, so an edited or old link opens what it can instead of
 * failing. Null when there is no usable grouping in it.
 */
export function specFromParam(text: string | null): GroupSpec | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(raw)) return null;
  const spec: GroupSpec = {
    keys: list(raw.keys).filter(isObj).filter((k) => KEY_SOURCE_SET.has(str(k.source))).map((k) => ({ source: k.source as KeySource, key: str(k.key), ...(str(k.alias) ? { alias: str(k.alias) } : {}) })),
    measures: list(raw.measures).map(measureOf).filter((m): m is Measure => m !== null),
    filters: list(raw.filters).filter(isObj).flatMap((f) => {
      const measure = measureOf(f.measure);
      return measure ? [{ measure, ...(numOrUndef(f.min) !== undefined ? { min: numOrUndef(f.min) } : {}), ...(numOrUndef(f.max) !== undefined ? { max: numOrUndef(f.max) } : {}) }] : [];
    }),
    distributions: list(raw.distributions).filter(isObj).filter((d) => isObj(d.value) && CUSTOM_SOURCE_SET.has(str(d.value.source))).map((d) => {
      const value = d.value as Record<string, unknown>;
      return {
        alias: str(d.alias),
        value: { source: value.source as Distribution['value']['source'], key: str(value.key) },
        ...(numOrUndef(d.bins) !== undefined ? { bins: numOrUndef(d.bins) } : {}),
        ...(numOrUndef(d.top_n) !== undefined ? { top_n: numOrUndef(d.top_n) } : {}),
      };
    }),
  };
  return spec.keys.length ? spec : null;
}

/** The spec as a link parameter (specFromParam reads it back). */
export const specParam = (spec: GroupSpec): string => JSON.stringify(spec);
