/**
 * How a group-by measure reads in the table (issue 22.10): by what it measures, not as a raw float —
 * an average duration "1.97 s" rather than "1969.779", a cost "$0.0123", tokens "12.3k", a rate of
 * failed spans "12.5 %", counts "1,234". And which fixed total of a group row a measure repeats
 * (a plain `count` is the Spans column): the table then shows the measure and drops the fixed column.
 */
import { fmtCost, fmtDuration, fmtTokens, DASH } from '../../components/format';
import type { Measure } from './groupModel';

export type MeasureKind = 'count' | 'duration' | 'cost' | 'tokens' | 'rate' | 'number';

const COUNTS = new Set(['count', 'count_distinct', 'count_true', 'count_false']);
const BOOLEAN_KEYS = new Set(['is_error', 'is_invocation']);

export function measureKind(m: Pick<Measure, 'aggregation' | 'value'>): MeasureKind {
  if (COUNTS.has(m.aggregation)) return 'count';
  const key = m.value?.key ?? '';
  const source = m.value?.source ?? 'derived';
  if (source === 'derived' || source === 'field') {
    if (key === 'duration_ms') return 'duration';
    if (key.endsWith('cost_usd')) return 'cost';
    if (key.endsWith('tokens')) return 'tokens';
    if (BOOLEAN_KEYS.has(key)) return m.aggregation === 'avg' ? 'rate' : 'count';
  }
  return 'number';
}

/** A plain number: whole numbers with separators, others to three significant places at most. */
export function fmtNumber(v: number): string {
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function formatMeasure(kind: MeasureKind, v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  switch (kind) {
    case 'count': return Math.round(v).toLocaleString('en-US');
    case 'duration': return fmtDuration(v);
    case 'cost': return fmtCost(v);
    case 'tokens': return Number.isInteger(v) ? fmtTokens(v) : v < 1000 ? fmtNumber(v) : fmtTokens(Math.round(v));
    case 'rate': return `${fmtNumber(Math.round(v * 1000) / 10)} %`;
    default: return fmtNumber(v);
  }
}

/**
 * The fixed group-row total a measure computes exactly (same aggregation over every span of the
 * group, no filter), or null. Such a fixed column is left out while the measure is shown.
 */
export function fixedTotalOf(m: Measure): string | null {
  if (m.filter) return null;
  const key = m.value?.key ?? '';
  const source = m.value?.source ?? 'derived';
  if (m.aggregation === 'count' && !key) return 'span_count';
  if (source !== 'derived') return null;
  if (m.aggregation === 'count_true' && key === 'is_error') return 'error_count';
  if (m.aggregation === 'count_true' && key === 'is_invocation') return 'invocation_count';
  if (m.aggregation === 'sum' && key === 'total_cost_usd') return 'total_cost_usd';
  if (m.aggregation === 'sum' && key === 'duration_ms') return 'total_duration_ms';
  return null;
}
