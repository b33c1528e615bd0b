/**
 * Issue 19's reads (bench/lib/ui-requests.ts scaleReads + filteredGroupBys: common-word search, threads
 * by a percentile, the filtered group-bys) timed on a store that exists already, e.g. a copy of the
 * shared 1M store — without importing anything:
 *
 *   cp -a /path/to/store-1m /tmp/copy && tsx bench/lib/scale-reads.ts /tmp/copy [runs] [indexes]
 *
 * With `pages`: instead, every request a page sends when it opens (ui-requests.ts `uiRequests`, the list the
 * scale section times per million), for one conversation, its first trace and agent-00.
 *
 * With `filters`: instead, every list filter the Conversations page and the Spans page's list offer, one at
 * a time (filterReads), to find a filter whose read grows with the store.
 *
 * With `indexes`: instead, the pages whose reads the spans indexes serve (the spans list page, the spans
 * of one agent with and without a time window, the spans of one conversation), to compare a layout
 * change before and after (migration 0025 dropped spans_project_agent).
 *
 * Opening a store writes to it (WAL, maintenance at open): give it a COPY, never a store someone else
 * reads. Prints per request p50 / p95 wall and p50 CPU (ms; CPU of every thread of this process, the
 * read workers included, so it holds under load), the rows it answered, and the load average.
 */
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import Database from 'better-sqlite3';
import path from 'node:path';
import { DB_FILE_NAME } from '../../src/main/store/index.js';
import { filteredGroupBys, groupByAgent, scaleReads, uiRequests, type UiRequest } from './ui-requests.js';
import { loadAverage, timeOp } from './timing.js';

const PROJECT = 'bench/genai';

/** Two instants at 35 % and 70 % of the project's time range (as the group-by section takes them). */
async function windowOf(ctx: ServiceContext): Promise<[string, string]> {
  const r = (await dispatch('spans.query', groupByAgent(PROJECT), ctx)) as { groups: { first_seen: string; last_seen: string }[] };
  const first = Math.min(...r.groups.map((g) => Date.parse(g.first_seen)));
  const last = Math.max(...r.groups.map((g) => Date.parse(g.last_seen)));
  const at = (share: number) => new Date(first + Math.round((last - first) * share)).toISOString();
  return [at(0.35), at(0.7)];
}

const rowsOf = (r: unknown): string => {
  const o = r as { rows?: unknown[]; groups?: unknown[]; spans?: unknown[]; conversations?: unknown[]; threads?: unknown[]; total_count?: number; total_count_exact?: boolean };
  const list = o.groups?.length ? o.groups : (o.spans ?? o.groups ?? o.conversations ?? o.threads ?? o.rows);
  if (!list) return 'answered';
  const total = o.total_count === undefined ? '' : ` of ${o.total_count}${o.total_count_exact === false ? ' (a lower bound)' : ''}`;
  return `${list.length} rows${total}`;
};

/** The pages the spans indexes serve, for one agent and one conversation of the bench project. */
async function indexReads(ctx: ServiceContext): Promise<{ name: string; op: string; input: Record<string, unknown> }[]> {
  const conv = (await dispatch('conversations.list', { project_id: PROJECT, limit: 1, offset: 0 }, ctx)) as { conversations: { conversation_id: string }[] };
  const conversation = conv.conversations[0]!.conversation_id;
  const ui = uiRequests({ project: PROJECT, conversation, trace: '', agent: 'agent-07' });
  const pick = (name: string) => ui.find((r) => r.name === name)!;
  const agentSpans = pick('spans of one agent');
  const [from, to] = await windowOf(ctx);
  const eq = (key: string, value: string) => ({ $expr: { $eq: [{ $getField: key }, { $literal: value }] } });
  return [
    pick('spans list page'),
    agentSpans,
    { name: 'spans of one agent, a time window', op: 'spans.query', input: { ...agentSpans.input, started_after: from, started_before: to } },
    { name: 'spans of one conversation', op: 'spans.query', input: { ...agentSpans.input, query: eq('gen_ai.conversation.id', conversation) } },
  ];
}

/** Every page-open request, for the newest conversation of the bench project, its first trace and agent-00. */
async function pageReads(ctx: ServiceContext, dataDir: string): Promise<UiRequest[]> {
  const conv = (await dispatch('conversations.list', { project_id: PROJECT, limit: 1, offset: 0 }, ctx)) as { conversations: { conversation_id: string }[] };
  const conversation = conv.conversations[0]!.conversation_id;
  const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
  try {
    const trace = db.prepare('SELECT trace_id FROM conversation_turns WHERE project_id = ? AND conversation_id = ? LIMIT 1').pluck().get(PROJECT, conversation) as string;
    return uiRequests({ project: PROJECT, conversation, trace, agent: 'agent-00' });
  } finally {
    db.close();
  }
}

/** The newest chat span of the bench project: the values the filter reads condition on. */
function latestChat(dataDir: string): Record<string, unknown> {
  const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM spans WHERE project_id = ? AND operation_name = 'chat' ORDER BY id DESC LIMIT 1`).get(PROJECT) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

/**
 * Every list filter a page offers, one at a time, with a value the store holds: the Conversations page's
 * (agent, model, status, search of an id-like word and a short one — ConversationsPage.tsx listInput) and
 * the Spans page's list mode (FilterBar.tsx FILTER_FIELDS as `=` conditions, a text search, a time range:
 * SpansList.tsx with the default sort and page), so a filter whose read grows with the store shows.
 */
async function filterReads(ctx: ServiceContext, dataDir: string): Promise<UiRequest[]> {
  const ids = await pageReads(ctx, dataDir);
  const listOf = (name: string) => ids.find((r) => r.name === name)!;
  const list = listOf('conversations list');
  const spans = listOf('spans list page');
  const facets = (await dispatch('conversations.facets', { project_id: PROJECT }, ctx)) as { agent_names: string[]; request_models: string[] };
  const sample = latestChat(dataDir);
  const conv = (name: string, filters: Record<string, unknown>, extra: Record<string, unknown> = {}): UiRequest => ({
    page: 'conversations', name, op: 'conversations.list', input: { ...list.input, filters: { status: 'all', ...filters }, ...extra },
  });
  const span = (name: string, query?: Record<string, unknown>, extra: Record<string, unknown> = {}): UiRequest => ({
    page: 'spans', name, op: 'spans.query', input: { ...spans.input, ...(query ? { query } : {}), ...extra },
  });
  const eq = (field: string, value: unknown) => ({ $expr: { $and: [{ $eq: [{ $getField: field }, { $literal: value }] }] } });
  const [from, to] = await windowOf(ctx);
  return [
    conv('conversations, one model', { models: [facets.request_models[0]] }),
    conv('conversations, one agent', { agent_names: [facets.agent_names[0]] }),
    conv('conversations, with errors', { status: 'error' }),
    conv("conversations, search 'A-1187'", {}, { search: 'A-1187' }),
    conv("conversations, search 'A-'", {}, { search: 'A-' }),
    conv("conversations, search 'warehouse'", {}, { search: 'warehouse' }),
    ...(['agent_name', 'operation_name', 'span_name', 'request_model', 'response_model', 'provider_name', 'status_code', 'tool_name', 'conversation_id', 'trace_id', 'span_kind'] as const)
      .filter((f) => sample[f] != null)
      .map((f) => span(`spans where ${f} = ${JSON.stringify(sample[f])}`, eq(f, sample[f]))),
    span('spans where status_code = ERROR', eq('status_code', 'ERROR')),
    span('spans where duration_ms > 5000', { $expr: { $and: [{ $gt: [{ $getField: 'duration_ms' }, { $literal: 5000 }] }] } }),
    span("spans, text search 'A-1187'", { $expr: { $search: 'A-1187' } }),
    span('spans, a time window (35-70 %)', undefined, { started_after: from, started_before: to }),
  ];
}

/**
 * The Spans page's group view (GroupView.tsx defaultGroupSpec: by agent_name, count and average duration)
 * alone and with each condition on a column the rollups do not key (span_name, response_model, span_kind,
 * a duration bound): these are answered by a scan of the project's spans, a GROUP BY sorter and the group
 * row's totals (docs/store.md "The same filters at 10M spans"), so they show what grows with the store.
 */
async function groupReads(ctx: ServiceContext, dataDir: string): Promise<UiRequest[]> {
  const view = (await pageReads(ctx, dataDir)).find((r) => r.name === 'group view (agent_name, default measures)')!;
  const sample = latestChat(dataDir);
  const group = (name: string, condition?: Record<string, unknown>): UiRequest => ({
    page: 'spans', name: `group view${name}`, op: 'spans.query', input: { ...view.input, ...(condition ? { query: { $expr: { $and: [condition] } } } : {}) },
  });
  return [
    group(''),
    ...(['span_name', 'response_model', 'span_kind'] as const)
      .filter((f) => sample[f] != null)
      .map((f) => group(` where ${f} = ${JSON.stringify(sample[f])}`, { $eq: [{ $getField: f }, { $literal: sample[f] }] })),
    group(' where duration_ms > 5000', { $gt: [{ $getField: 'duration_ms' }, { $literal: 5000 }] }),
  ];
}

async function main(): Promise<void> {
  const [dataDir, runsArg, mode] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: tsx bench/lib/scale-reads.ts <data dir (a copy)> [runs] [pages | filters | groups | indexes]');
  const runs = Number(runsArg ?? 10);
  const store = await openStores(dataDir);
  const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
  try {
    console.log(`load average (1, 5, 15 min) before: ${loadAverage()}`);
    const reads = mode === 'indexes' ? await indexReads(ctx) : mode === 'pages' ? await pageReads(ctx, dataDir) : mode === 'filters' ? await filterReads(ctx, dataDir) : mode === 'groups' ? await groupReads(ctx, dataDir) : [...scaleReads(PROJECT).filter((r) => r.op !== 'spans.query'), ...filteredGroupBys(PROJECT, await windowOf(ctx))];
    for (const r of reads) {
      const t = await timeOp(ctx, r.op, r.input, runs);
      const answer = rowsOf(await dispatch(r.op, r.input, ctx, { trusted: true }));
      console.log(`${r.name}: p50 ${t.p50.toFixed(1)} · p95 ${t.p95.toFixed(1)} · CPU p50 ${t.cpuP50.toFixed(1)} ms (${runs} runs; ${answer}; load ${loadAverage().split(' ')[0]})`);
    }
    console.log(`load average (1, 5, 15 min) after: ${loadAverage()}`);
  } finally {
    await store.close();
  }
}

await main();
