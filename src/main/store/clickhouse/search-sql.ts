/**
 * `$search` as ClickHouse SQL: the spans whose stored texts hold a needle, case-insensitively (UTF-8
 * case folding). Columns, string attributes and tool text are matched as they are (exact); messages
 * and system instructions as their stored JSON text, the needle also JSON-escaped — a superset of
 * the rule (domain/search-text.ts), since that text also holds keys, roles and part types. The
 * conversations list and `search` check each candidate against the rule (reads/matches.ts); a
 * condition inside a spans query cannot, and the service labels such answers (capabilities).
 */
import { SEARCHED_COLUMNS } from '../../domain/search-text.js';
import { ident, join, raw, sql, str, type Sql } from './sql.js';

const hasNeedle = (column: Sql, needles: Sql[]) => join(needles.map((n) => sql`positionCaseInsensitiveUTF8(${column}, ${n}) > 0`), ' OR ');

/** The needle as it is written in stored JSON text, too, when that differs (quotes, backslashes, control characters). */
export const needlesOf = (needle: string): Sql[] => {
  const escaped = JSON.stringify(needle).slice(1, -1);
  return escaped === needle ? [sql`${str(needle)}`] : [sql`${str(needle)}`, sql`${str(escaped)}`];
};

/** SQL over `span_payloads`: its message or instruction JSON holds the needle (a superset of the rule). */
export function payloadCandidates(projectId: string, needle: string): Sql {
  const n = needlesOf(needle);
  return sql`SELECT trace_id, span_id FROM span_payloads FINAL WHERE project_id = ${str(projectId)} AND deleted = 0
    AND (${hasNeedle(raw('input_messages'), n)} OR ${hasNeedle(raw('output_messages'), n)} OR ${hasNeedle(raw('system_instructions'), n)})`;
}

/** SQL over `spans`: a searched column, string attribute or tool text holds the needle (ASCII and UTF-8 case folding). */
export function columnCandidates(needle: string): Sql {
  const n = needlesOf(needle).slice(0, 1);
  const cols = [...SEARCHED_COLUMNS, 'tool_call_arguments', 'tool_call_result'].map((c) => hasNeedle(sql`ifNull(${ident(c)}, '')`, n));
  return sql`(${join(cols, ' OR ')} OR arrayExists(v -> ${hasNeedle(raw('v'), n)}, str_values))`;
}


/**
 * Characters outside ASCII whose lowercase (`String.toLowerCase`, the rule's folding) holds an ASCII
 * letter — the only two in Unicode (checked over every code point): İ → "i̇" and the Kelvin sign → "k".
 */
const FOLDS_TO_ASCII: Readonly<Record<string, string>> = { i: '\u0130', k: '\u212a' };

/**
 * A test the server applies before a candidate reaches the rule (domain/search-text.ts), so that
 * a search moves only the spans that can match: true of every text the rule matches, for a needle
 * of ASCII characters only — a byte-wise ASCII case-insensitive substring of the needle or of its
 * JSON-escaped form (`positionCaseInsensitive`: no UTF-8 case table, whose folding is not
 * JavaScript's), or, when the needle holds an i or a k, a text holding İ or K (they fold to those
 * letters). Null for other needles: the caller then checks every candidate itself.
 */
export function asciiPrefilter(needle: string): ((text: Sql) => Sql) | null {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(needle)) return null;
  const escaped = JSON.stringify(needle).slice(1, -1);
  const folded = needle.toLowerCase();
  const guards = Object.entries(FOLDS_TO_ASCII).filter(([letter]) => folded.includes(letter)).map(([, c]) => c);
  return (text) =>
    join([
      ...[needle, ...(escaped === needle ? [] : [escaped])].map((n) => sql`positionCaseInsensitive(${text}, ${str(n)}) > 0`),
      ...guards.map((c) => sql`position(${text}, ${str(c)}) > 0`),
    ], ' OR ');
}

/**
 * The server-side test of a span row (`spans`) and of its payload row (`span_payloads`) by
 * `asciiPrefilter`, or null when the needle has none.
 */
export function prefilterSql(needle: string): { columns: Sql; payload: Sql } | null {
  const has = asciiPrefilter(needle);
  if (!has) return null;
  const cols = [...SEARCHED_COLUMNS, 'tool_call_arguments', 'tool_call_result'].map((c) => has(sql`ifNull(${ident(c)}, '')`));
  return {
    columns: sql`(${join(cols, ' OR ')} OR arrayExists(v -> ${has(raw('v'))}, str_values))`,
    payload: sql`(${has(raw('input_messages'))} OR ${has(raw('output_messages'))} OR ${has(raw('system_instructions'))})`,
  };
}

/** `$search` in a condition over `spans` (any column of the candidates' SQL; the project of the query's scope). */
export function searchCondition(projectId: string, needle: string): Sql {
  return sql`(${columnCandidates(needle)} OR (trace_id, span_id) IN (${payloadCandidates(projectId, needle)}))`;
}
