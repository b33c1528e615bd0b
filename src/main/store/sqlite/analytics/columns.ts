/**
 * The SQL text of every entry of the column catalog (domain/catalog.ts) in this adapter's schema.
 * Every identifier that reaches SQL comes from these tables; a plan only selects entries, and
 * custom-attribute keys travel as bound JSON paths, so nothing a client sends is pasted into SQL.
 */
import {
  FLOAT_COLUMNS, HEAVY_COLUMNS, INT_COLUMNS, STRING_COLUMNS, type Column, type CustomSource, type Derived,
} from '../../../domain/catalog.js';
import type { FieldRef } from '../../../domain/expr.js';

export interface Sql {
  sql: string;
  params: unknown[];
}

export const COLUMN_SQL: Readonly<Record<Column, string>> = Object.fromEntries([
  ...[...STRING_COLUMNS, ...INT_COLUMNS, ...FLOAT_COLUMNS].map((c) => [c, `s.${c}`]),
  // Heavy text lives in span_details: a correlated lookup, only evaluated where a plan reads it.
  ...HEAVY_COLUMNS.map((c) => [c, `(SELECT d.${c} FROM span_details d WHERE d.span_rowid = s.id)`]),
  ['started_at', 's.start_ns'],
  ['ended_at', 's.end_ns'],
]) as Record<Column, string>;

export const DERIVED_SQL: Readonly<Record<Derived, string>> = {
  duration_ms: '(CASE WHEN s.end_ns >= s.start_ns THEN (s.end_ns - s.start_ns) / 1000000 END)',
  // What the span adds to totals (the one counting rule, spans.counted bit 1 / bit 2): null for a span
  // whose usage or cost repeats its descendants' (a mirrored invoke_agent span), so a sum of these
  // equals the chat header, agents and conversations list for the same spans. docs/analytics.md.
  total_tokens: '(CASE WHEN s.counted & 1 THEN IFNULL(s.input_tokens, 0) + IFNULL(s.output_tokens, 0) END)',
  is_error: "(s.status_code = 'ERROR')",
  is_invocation: "(s.operation_name IS 'invoke_agent')",
  total_cost_usd: '(CASE WHEN s.counted & 2 THEN s.total_cost_usd END)',
};

/** SQLite JSON path of a custom attribute key (quoted, so dots stay part of the name); keys are checked addressable by the parser. */
export const jsonPathOf = (key: string): string => `$."${key}"`;

/** A custom attribute read from one map. */
export const customSql = (source: CustomSource, key: string): Sql => ({ sql: `json_extract(s.${source}, ?)`, params: [jsonPathOf(key)] });

/** SQL of a field reference. */
export function fieldSql(f: FieldRef): Sql {
  switch (f.kind) {
    case 'column':
      return { sql: COLUMN_SQL[f.column], params: [] };
    case 'derived':
      return { sql: DERIVED_SQL[f.name], params: [] };
    case 'custom': {
      if (f.sources.length === 1) return customSql(f.sources[0]!, f.key);
      const p = jsonPathOf(f.key);
      return { sql: `COALESCE(${f.sources.map((s) => `json_extract(s.${s}, ?)`).join(', ')})`, params: f.sources.map(() => p) };
    }
  }
}
