/**
 * Calls an analytics operation through the real dispatch (contract zod parse → 422 detail, then the
 * handler), collecting streamed rows, on a real store in a temp directory. Used by the unit tests; the HTTP tests go through
 * a real server instead.
 */
import { tmpdir } from 'node:os';
import { analyticsOps } from '../../src/shared/contract/analytics.js';
import { ServiceError, type ValidationIssue } from '../../src/shared/errors.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { Stores } from '../../src/main/store/ports.js';
import { openTestStores, type TestStores } from './temp-store.js';

/** A spans.query body through the contract's schema (defaults filled), as dispatch hands it to the handler. */
export const spansInput = (body: Record<string, unknown>) => analyticsOps['spans.query'].input.parse(body);

export function tempStore(): Promise<TestStores> {
  return openTestStores();
}

export function contextOf(store: Stores): ServiceContext {
  return { traces: store.traces, app: store.app, events: new EventBus(), dataDir: tmpdir(), apiKey: 'test' };
}

type Name = keyof typeof analyticsOps;

export async function call(ctx: ServiceContext, name: Name, raw: unknown): Promise<any> {
  const out = await dispatch(name, raw, ctx);
  if (out && typeof out === 'object' && Symbol.asyncIterator in out) {
    const rows: unknown[] = [];
    for await (const r of out as AsyncIterable<unknown>) rows.push(r);
    return rows;
  }
  return out;
}

/** The 422 detail of a call that must fail validation (throws when the call succeeds). */
export async function detailOf(ctx: ServiceContext, name: Name, raw: unknown): Promise<ValidationIssue[]> {
  try {
    await call(ctx, name, raw);
  } catch (e) {
    if (e instanceof ServiceError && e.status === 422) return e.detail as ValidationIssue[];
    throw e;
  }
  throw new Error(`${name} accepted ${JSON.stringify(raw).slice(0, 200)}`);
}
