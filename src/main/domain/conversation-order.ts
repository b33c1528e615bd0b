/**
 * The order of the conversations list and its cursor, for every adapter (issue 19 item 5): the plan's
 * sort fields over the stored summary's columns, then conversation_id ascending (unless sorted on),
 * then kind ascending — a complete order, so a page ends at a row and the next page starts strictly
 * after it (keyset paging: no row is skipped or repeated when rows arrive between pages, and a deep
 * page costs what the first does). Nulls sort smallest: first ascending, last descending.
 *
 * A cursor is the last row's key in that order, written as opaque text (base64url JSON) with the
 * order it belongs to, so a cursor sent with another sort is refused instead of paging wrongly.
 */
import type { ConversationSortField, Direction } from './plans.js';
import type { ConversationSummary } from './conversation-row.js';

// The key types live with the plan that carries them (plans.ts), so the two files do not import each other.
import type { ConversationKey, KeyValue } from './plans.js';
import { compareUtf8 } from './utf8-order.js';
export type { ConversationKey, KeyValue };

/** Summary columns of the sort fields (both adapters store the summary under these names). */
export const SORT_COLUMN = {
  conversation_id: 'conversation_id', conversation_name: 'conversation_name', turn_count: 'turn_count', span_count: 'span_count',
  error_count: 'error_count', total_input_tokens: 'input_tokens', total_output_tokens: 'output_tokens', total_cost_usd: 'cost_usd',
  first_activity: 'first_ns', last_activity: 'last_ns',
} as const satisfies Record<ConversationSortField, keyof ConversationSummary>;

export type OrderColumn = (typeof SORT_COLUMN)[ConversationSortField] | 'kind';
export type Order = readonly { column: OrderColumn; direction: Direction }[];

/** What each column holds: nanosecond times travel as decimal text in a cursor. */
const KIND: Record<OrderColumn, 'text' | 'int' | 'real' | 'ns'> = {
  conversation_id: 'text', conversation_name: 'text', kind: 'text', turn_count: 'int', span_count: 'int', error_count: 'int',
  input_tokens: 'int', output_tokens: 'int', cost_usd: 'real', first_ns: 'ns', last_ns: 'ns',
};
export const columnKind = (c: OrderColumn) => KIND[c];

/** The plan's complete order. */
export function orderOf(sort: readonly { field: ConversationSortField; direction: Direction }[]): Order {
  const order: { column: OrderColumn; direction: Direction }[] = sort.map((s) => ({ column: SORT_COLUMN[s.field], direction: s.direction }));
  if (!order.some((o) => o.column === 'conversation_id')) order.push({ column: 'conversation_id', direction: 'asc' });
  order.push({ column: 'kind', direction: 'asc' });
  return order;
}

export const keyOf = (r: ConversationSummary, order: Order): ConversationKey => order.map((o) => r[o.column]);

/** Strings compare as the stores compare them: by their UTF-8 bytes. */
function compareValues(a: KeyValue, b: KeyValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') return compareUtf8(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two keys of one order. */
export function compareKeys(order: Order, a: ConversationKey, b: ConversationKey): number {
  for (let i = 0; i < order.length; i++) {
    const c = compareValues(a[i]!, b[i]!);
    if (c) return order[i]!.direction === 'asc' ? c : -c;
  }
  return 0;
}

/**
 * "Strictly after `key` in `order`" as a disjunction of conjunctions of column tests (each adapter
 * writes them in its SQL): row > key ⇔ ∃i: columns before i equal, column i after.
 */
export type KeyTest =
  | { column: OrderColumn; test: 'eq' | 'gt' | 'ge' | 'lt_or_null' | 'le_or_null'; value: string | number | bigint }
  | { column: OrderColumn; test: 'null' | 'not_null' };

/**
 * A bound on the first column alone that every row after `key` meets (implied by afterKey): with it
 * a store seeks its index of that column instead of testing rows from the start of the order.
 */
export function leadingBound(order: Order, key: ConversationKey): KeyTest | null {
  const o = order[0]!;
  const v = key[0]!;
  if (o.direction === 'asc') return v === null ? null : { column: o.column, test: 'ge', value: v };
  return v === null ? { column: o.column, test: 'null' } : { column: o.column, test: 'le_or_null', value: v };
}

export function afterKey(order: Order, key: ConversationKey): KeyTest[][] {
  const out: KeyTest[][] = [];
  const equal: KeyTest[] = [];
  order.forEach((o, i) => {
    const v = key[i]!;
    // After v: ascending (nulls first) = greater, or any value after a null; descending (nulls last) = smaller or null.
    const after: KeyTest | null =
      o.direction === 'asc' ? (v === null ? { column: o.column, test: 'not_null' } : { column: o.column, test: 'gt', value: v })
      : v === null ? null : { column: o.column, test: 'lt_or_null', value: v };
    if (after) out.push([...equal, after]);
    equal.push(v === null ? { column: o.column, test: 'null' } : { column: o.column, test: 'eq', value: v });
  });
  return out;
}

export class CursorError extends Error {}

const signature = (order: Order) => order.map((o) => `${o.column}:${o.direction}`).join(',');

export function encodeCursor(order: Order, key: ConversationKey): string {
  const k = key.map((v) => (typeof v === 'bigint' ? v.toString() : v));
  return Buffer.from(JSON.stringify({ o: signature(order), k }), 'utf8').toString('base64url');
}

/** The key of a cursor made for `order`; CursorError when it is malformed or made for another order. */
export function decodeCursor(order: Order, text: string): ConversationKey {
  let parsed: { o?: unknown; k?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { o?: unknown; k?: unknown };
  } catch {
    throw new CursorError('is not a cursor this list gave out');
  }
  if (parsed.o !== signature(order)) throw new CursorError('was made for another sort order: send the sort_by the cursor came with, or start again without a cursor');
  const k = parsed.k;
  if (!Array.isArray(k) || k.length !== order.length) throw new CursorError('is not a cursor this list gave out');
  return order.map((o, i) => {
    const v = k[i] as unknown;
    if (v === null) {
      if (o.column === 'conversation_id' || o.column === 'kind') throw new CursorError('is not a cursor this list gave out');
      return null;
    }
    const kind = KIND[o.column];
    if (kind === 'text' && typeof v === 'string') return v;
    if (kind === 'int' && typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (kind === 'real' && typeof v === 'number' && Number.isFinite(v)) return v;
    if (kind === 'ns' && typeof v === 'string' && /^-?\d{1,20}$/.test(v)) return BigInt(v);
    throw new CursorError('is not a cursor this list gave out');
  });
}
