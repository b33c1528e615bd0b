/**
 * Cursors of paged tools: opaque to the agent, they carry the position and a short hash of the
 * arguments that chose the rows, so a cursor handed back with other arguments is refused instead of
 * silently paging another list.
 */
import { createHash } from 'node:crypto';
import { ToolError } from './tool.js';

const scopeHash = (scope: unknown) => createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 10);

export function encodeCursor(tool: string, scope: unknown, position: number): string {
  return Buffer.from(JSON.stringify({ t: tool, s: scopeHash(scope), p: position })).toString('base64url');
}

/** The position a cursor names (0 without a cursor); a ToolError naming the argument otherwise. */
export function decodeCursor(cursor: string | undefined, tool: string, scope: unknown): number {
  if (cursor === undefined || cursor === '') return 0;
  let v: { t?: unknown; s?: unknown; p?: unknown };
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof v;
  } catch {
    throw new ToolError(`argument "cursor": not a cursor of ${tool}; pass the next_cursor of its previous answer unchanged (or leave cursor out for the first page)`);
  }
  if (v.t !== tool || typeof v.p !== 'number' || !Number.isInteger(v.p) || v.p < 0) {
    throw new ToolError(`argument "cursor": not a cursor of ${tool}; pass the next_cursor of its previous answer unchanged (or leave cursor out for the first page)`);
  }
  if (v.s !== scopeHash(scope)) {
    throw new ToolError(`argument "cursor": this cursor belongs to a call with other arguments; repeat the arguments of the call that returned it, or leave cursor out to start again`);
  }
  return v.p;
}
