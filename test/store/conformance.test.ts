/**
 * The stores' conformance suite (issue 19 item 4), in the manner of Jaeger's storage integration
 * tests: one fixture set (conformance/fixture.ts) written to every adapter of ./adapters.ts, and one
 * data file of cases (conformance/cases.json: `{name, operation, params, expected}`) answered by each
 * through the service's own handlers — search, filters, sorts, paging, time ranges, group-by,
 * threads, chat. Every adapter must give the expected answer; a difference is allowed only where the
 * adapter's file (conformance/differences.<adapter>.json) gives another answer and says why.
 *
 * An answer is compared on the keys the case's `expected` names (rows as ids in order, counts, the
 * fields named per row), so a case pins what it is about and nothing incidental.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contract } from '../../src/shared/contract/index.js';
import { conversationHandlers } from '../../src/main/service/conversations/handlers.js';
import { analyticsHandlers } from '../../src/main/service/analytics/handlers.js';
import { chatHandlers } from '../../src/main/service/chat/handlers.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import { ADAPTERS, type OpenedAdapter } from './adapters.js';
import { P, conformanceFixture } from './conformance/fixture.js';

interface Case {
  name: string;
  operation: 'conversations.list' | 'conversations.pages' | 'spans.query' | 'agents.query' | 'threads.query' | 'chat.conversation' | 'search';
  params: Record<string, unknown>;
  expected: Record<string, unknown>;
}
interface Difference {
  why: string;
  expected: Record<string, unknown>;
}

const dir = path.join(path.dirname(new URL(import.meta.url).pathname), 'conformance');
const CASES = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8')) as Case[];
const differences = (adapter: string): Record<string, Difference> => {
  try {
    return JSON.parse(readFileSync(path.join(dir, `differences.${adapter}.json`), 'utf8')) as Record<string, Difference>;
  } catch {
    return {};
  }
};

type Handler = (input: unknown, ctx: ServiceContext, call: object) => unknown;
const handler = (op: string): Handler => ({ ...conversationHandlers, ...analyticsHandlers, ...chatHandlers } as unknown as Record<string, Handler>)[op]!;
const parse = (op: string, params: Record<string, unknown>) => (contract as unknown as Record<string, { input: { parse(x: unknown): unknown } }>)[op]!.input.parse({ project_id: P, ...params });

async function collect<T>(x: unknown): Promise<T[]> {
  const out: T[] = [];
  for await (const v of x as AsyncIterable<T>) out.push(v);
  return out;
}

type Row = { kind: string; conversation_id: string; snippet: { text: string } | null } & Record<string, unknown>;
const rowId = (r: Row) => (r.kind === 'trace' ? `trace:${r.conversation_id}` : r.conversation_id);

/** An answer in the terms of the case's expected keys. */
async function answer(c: Case, ctx: ServiceContext): Promise<Record<string, unknown>> {
  const call = {};
  switch (c.operation) {
    case 'conversations.list': {
      const r = (await handler('conversations.list')(parse('conversations.list', c.params), ctx, call)) as { conversations: Row[] } & Record<string, unknown>;
      const byId = new Map(r.conversations.map((x) => [rowId(x), x]));
      return {
        rows: r.conversations.map(rowId),
        total_count: r.total_count,
        total_count_exact: r.total_count_exact,
        search_scope: r.search_scope,
        last_page: r.next_cursor === null,
        snippets: Object.fromEntries(r.conversations.map((x) => [rowId(x), x.snippet?.text ?? null])),
        fields: (ids: Record<string, Record<string, unknown>>) => Object.fromEntries(Object.entries(ids).map(([id, want]) => [id, pick(byId.get(id), Object.keys(want))])),
      };
    }
    case 'conversations.pages': {
      const pages: string[][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 50; i++) {
        const r = (await handler('conversations.list')(parse('conversations.list', { ...c.params, ...(cursor ? { cursor } : {}) }), ctx, call)) as { conversations: Row[]; next_cursor: string | null; total_count: number };
        pages.push(r.conversations.map(rowId));
        if (!r.next_cursor) return { pages, total_count: r.total_count };
        cursor = r.next_cursor;
      }
      throw new Error('more than 50 pages');
    }
    case 'spans.query': {
      const r = (await handler('spans.query')(parse('spans.query', c.params), ctx, call)) as { spans: { span_id: string }[]; groups: { group_keys: Record<string, unknown> }[]; total_count: number } & Record<string, unknown>;
      return {
        spans: r.spans.map((s) => s.span_id),
        groups: (want: Record<string, unknown>[]) => r.groups.map((g, i) => pick(g, Object.keys(want[i] ?? want[0] ?? {}))),
        total_count: r.total_count,
        search_matches: r.search_matches,
      };
    }
    case 'agents.query': {
      const r = (await handler('agents.query')(parse('agents.query', c.params), ctx, call)) as { agents: Record<string, unknown>[]; total_count: number };
      return { agents: (want: Record<string, unknown>[]) => r.agents.map((a, i) => pick(a, Object.keys(want[i] ?? want[0] ?? {}))), total_count: r.total_count };
    }
    case 'threads.query': {
      const rows = await collect<Record<string, unknown>>(handler('threads.query')(parse('threads.query', c.params), ctx, call));
      return { threads: (want: Record<string, unknown>[]) => rows.map((t, i) => pick(t, Object.keys(want[i] ?? want[0] ?? {}))) };
    }
    case 'chat.conversation': {
      const r = (await handler('chat.conversation')(parse('chat.conversation', c.params), ctx, call)) as {
        turns: { trace_id: string; messages: { type: string; user_message: { text?: string } | null; assistant_message: { text?: string } | null; tool_call: { name?: string } | null }[] }[];
        total_turns: number; total_cost_usd: number | null;
      };
      return {
        turns: r.turns.map((t) => t.trace_id),
        total_turns: r.total_turns,
        total_cost_usd: r.total_cost_usd,
        messages: Object.fromEntries(r.turns.map((t) => [t.trace_id, t.messages.map((m) => `${m.type}: ${m.user_message?.text ?? m.assistant_message?.text ?? m.tool_call?.name ?? ''}`)])),
      };
    }
    case 'search': {
      const hits = await ctx.traces.search({ project_id: P, text: c.params.text as string, limit: (c.params.limit as number | undefined) ?? 100 });
      return { spans: hits.map((h) => h.span_id).sort(), snippets: Object.fromEntries(hits.map((h) => [h.span_id, h.snippet])) };
    }
  }
}

function pick(x: unknown, keys: string[]): Record<string, unknown> | undefined {
  if (!x) return undefined;
  return Object.fromEntries(keys.map((k) => [k, (x as Record<string, unknown>)[k]]));
}

/** The answer's value for one expected key (functions take the expected value to shape themselves). */
function actual(got: Record<string, unknown>, key: string, want: unknown): unknown {
  const v = got[key];
  if (typeof v === 'function') return (v as (w: unknown) => unknown)(want);
  if (key === 'snippets' && v && typeof v === 'object') {
    // Expected snippets name a substring each excerpt must contain (or null: no excerpt).
    return Object.fromEntries(Object.entries(want as Record<string, string | null>).map(([id, sub]) => {
      const text = (v as Record<string, string | null>)[id];
      return [id, sub === null ? text ?? null : text?.toLowerCase().includes(sub.toLowerCase()) ? sub : text];
    }));
  }
  return v;
}

describe.each(ADAPTERS)('conformance: $name', (adapter) => {
  let store: OpenedAdapter;
  let ctx: ServiceContext;
  const own = differences(adapter.name.split(',')[0]!);

  beforeAll(async () => {
    store = await adapter.open();
    await store.traces.writeSpans(conformanceFixture());
    ctx = { traces: store.traces } as ServiceContext;
  }, 180_000);
  afterAll(() => store.close());

  it.each(CASES)('$name', async (c) => {
    const diff = own[c.name];
    if (diff) console.log(`conformance: ${adapter.name} answers "${c.name}" differently, by its differences file: ${diff.why}`);
    const expected = diff?.expected ?? c.expected;
    const got = await answer(c, ctx);
    const view = Object.fromEntries(Object.entries(expected).map(([k, want]) => [k, actual(got, k, want)]));
    expect(view).toEqual(expected);
  });

  // ClickHouse walks a needle its term index finds in more than `gatherDocs` documents, day by day,
  // newest first (reads/matches.ts): the search cases again with every needle walked, same answers.
  it.each(adapter.name === 'clickhouse' ? CASES.filter((c) => c.operation === 'search') : [])('$name, every needle walked', async (c) => {
    const traces = store.traces as { gatherDocs?: number };
    expect(traces.gatherDocs).toBeGreaterThan(0);
    const was = traces.gatherDocs!;
    traces.gatherDocs = 0;
    try {
      const expected = own[c.name]?.expected ?? c.expected;
      const got = await answer(c, ctx);
      expect(Object.fromEntries(Object.entries(expected).map(([k, want]) => [k, actual(got, k, want)]))).toEqual(expected);
    } finally {
      traces.gatherDocs = was;
    }
  });

  // The list's search reads its candidates in batches of documents and days, newest first (reads/matches.ts
  // Chunking): with one id and one day a statement, the same answers as one batch.
  it.each(adapter.name === 'clickhouse' ? CASES.filter((c) => c.operation === 'conversations.list' && typeof c.params.search === 'string') : [])('$name, one id and one day a statement', async (c) => {
    const traces = store.traces as { listGather?: { chunking?: { ids?: number; days?: number } } };
    expect(traces.listGather).toBeDefined();
    const was = traces.listGather!;
    traces.listGather = { ...was, chunking: { ids: 1, days: 1 } };
    try {
      const expected = own[c.name]?.expected ?? c.expected;
      const got = await answer(c, ctx);
      expect(Object.fromEntries(Object.entries(expected).map(([k, want]) => [k, actual(got, k, want)]))).toEqual(expected);
    } finally {
      traces.listGather = was;
    }
  });
});

describe('conformance data', () => {
  it('every case has a unique name, a known operation and something expected; every difference names a case and says why', () => {
    const names = CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of CASES) expect(Object.keys(c.expected).length, c.name).toBeGreaterThan(0);
    for (const a of ['sqlite', 'clickhouse']) {
      for (const [name, d] of Object.entries(differences(a))) {
        expect(names, `differences.${a}.json`).toContain(name);
        expect(d.why.length, `${a}: ${name}`).toBeGreaterThan(20);
      }
    }
  });
});
