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


/** `$search` in a condition over `spans` (any column of the candidates' SQL; the project of the query's scope). */
export function searchCondition(projectId: string, needle: string): Sql {
  return sql`(${columnCandidates(needle)} OR (trace_id, span_id) IN (${payloadCandidates(projectId, needle)}))`;
}
