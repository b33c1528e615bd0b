/**
 * Cursors of paged tools: opaque to the agent, they carry the position and a short hash of the
 * arguments that chose the rows, so a cursor handed back with other arguments is refused instead of
 * silently paging another list.
 */
import { createHash } from 'node:crypto';
import { ToolError } from './tool.js';

const scopeHash = (scope: unknown) => createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 10);

const notOurs = (tool: string) =>
  new ToolError(`argument "cursor": not a cursor of ${tool}; pass the next_cursor of its previous answer unchanged (or leave cursor out for the first page)`);

function parse(cursor: string, tool: string, scope: unknown): { p: number; c?: unknown } {
  let v: { t?: unknown; s?: unknown; p?: unknown; c?: unknown };
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof v;
  } catch {
    throw notOurs(tool);
  }
  if (v === null || typeof v !== 'object' || v.t !== tool || typeof v.p !== 'number' || !Number.isInteger(v.p) || v.p < 0) throw notOurs(tool);
  if (v.s !== scopeHash(scope)) {
    throw new ToolError(`argument "cursor": this cursor belongs to a call with other arguments; repeat the arguments of the call that returned it, or leave cursor out to start again`);
  }
  return { ...v, p: v.p };
}

export function encodeCursor(tool: string, scope: unknown, position: number): string {
  return Buffer.from(JSON.stringify({ t: tool, s: scopeHash(scope), p: position })).toString('base64url');
}

/** The position a cursor names (0 without a cursor); a ToolError naming the argument otherwise. */
export function decodeCursor(cursor: string | undefined, tool: string, scope: unknown): number {
  if (cursor === undefined || cursor === '') return 0;
  return parse(cursor, tool, scope).p;
}

/**
 * Where a list read through the operation's own keyset cursor (conversations.list's next_cursor)
 * continues: that cursor (null: the first page), and the position of its first row (for "rows 11–20").
 */
export interface ListPosition {
  list: string | null;
  position: number;
}

export function encodeListCursor(tool: string, scope: unknown, at: ListPosition): string {
  return Buffer.from(JSON.stringify({ t: tool, s: scopeHash(scope), p: at.position, c: at.list })).toString('base64url');
}

/** The list position a cursor names (the first page without a cursor); a ToolError naming the argument otherwise. */
export function decodeListCursor(cursor: string | undefined, tool: string, scope: unknown): ListPosition {
  if (cursor === undefined || cursor === '') return { list: null, position: 0 };
  const v = parse(cursor, tool, scope);
  if (typeof v.c !== 'string') throw notOurs(tool);
  return { list: v.c, position: v.p };
}
