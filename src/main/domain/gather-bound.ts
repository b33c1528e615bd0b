/**
 * When a conversations-list search gathers its candidates and when it walks the list (the rule both
 * adapters apply, each with its own measured weight). Gathering checks every candidate document's
 * traces: its cost follows the documents the term index names. Walking checks the list's rows in the
 * page's order until the page holds `need` matching rows: it passes about need × rows ÷ matching rows,
 * and the matching rows are about docs ÷ (documents per matching row). The two cost the same at
 * docs² = need × rows × weight, where weight = (documents per matching row) × (cost of a row the walk
 * passes ÷ cost of a document gathered) — measured per adapter (sqlite/conversation-search.ts,
 * clickhouse/reads/matches.ts). A fixed bound of 1,000 documents walked a needle just over it through
 * nearly every row of a big store (`A-1187` at 10M spans on SQLite: over 3 minutes instead of ~1 s).
 */

/**
 * Candidate documents up to which a query is always gathered, whatever the store (small stores answer
 * as before the weighed rule; ~1 s of gathering on either adapter at 1M–10M spans).
 */
export const GATHER_DOCS = 1_000;

/**
 * The candidate documents beyond which a query is walked rather than gathered, for a list of `rows`
 * rows and a page that needs `need` matching rows (offset + limit + 1): √(need × rows × weight), never
 * below `floor` (tests lower it).
 */
export function gatherBound(rows: number, need: number, weight: number, floor = GATHER_DOCS): number {
  return Math.max(floor, Math.floor(Math.sqrt(need * rows * weight)));
}
