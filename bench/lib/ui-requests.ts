/**
 * Every request a UI page sends when it opens, with the inputs the renderer builds by default (read
 * from src/renderer/src/pages/…; keep in step when a page changes what it asks). The scale section
 * times each of them on the 10M-span store, so "the page opens fast" is measured request by request.
 */
import type { OpName } from '../../src/shared/contract/index.js';

export interface UiRequest {
  page: string;
  name: string;
  op: OpName;
  input: Record<string, unknown>;
}

export interface UiIds {
  project: string;
  conversation: string;
  trace: string;
  agent: string;
}

/** The group-by figure: spans grouped by agent_name with three measures (≤ 1 s). */
export const groupByAgent = (project: string) => ({
  project_id: project,
  group_by: [{ key: 'agent_name', source: 'field' }],
  measures: [
    { alias: 'tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' } },
    { alias: 'p_dur', aggregation: 'avg', value: { key: 'duration_ms', source: 'derived' } },
    { alias: 'errors', aggregation: 'count_true', value: { key: 'is_error', source: 'derived' } },
  ],
});

export function uiRequests({ project, conversation, trace, agent }: UiIds): UiRequest[] {
  const listInput = { project_id: project, filters: { status: 'all' }, limit: 200, offset: 0 };
  return [
    // shell/Sidebar.tsx: the project switcher, on every page.
    { page: 'shell', name: 'projects', op: 'system.projects', input: {} },
    // pages/conversations/ConversationsPage.tsx + listQuery.ts + ListFilterBar.tsx
    { page: 'conversations', name: 'conversations list', op: 'conversations.list', input: { ...listInput, sort_by: [{ field: 'last_activity', direction: 'desc' }] } },
    { page: 'conversations', name: 'filter choices', op: 'conversations.facets', input: { project_id: project } },
    { page: 'conversations', name: 'conversations list, one agent, by cost', op: 'conversations.list', input: { ...listInput, filters: { status: 'all', agent_names: [agent] }, sort_by: [{ field: 'total_cost_usd', direction: 'desc' }] } },
    { page: 'conversations', name: 'conversations list, with errors, by turns', op: 'conversations.list', input: { ...listInput, filters: { status: 'error' }, sort_by: [{ field: 'turn_count', direction: 'desc' }] } },
    { page: 'conversations', name: 'conversations list, search', op: 'conversations.list', input: { ...listInput, search: 'A-1187' } },
    // pages/conversations/ConversationPage.tsx (TURN_PAGE = 10)
    { page: 'conversation', name: 'conversation chat', op: 'chat.conversation', input: { project_id: project, conversation_id: conversation, include_feedback: true, limit: 10, offset: 0 } },
    // pages/trace/TracePage.tsx (chat tab, timeline tab) and the list's trace previews
    { page: 'trace', name: 'trace chat', op: 'chat.trace', input: { project_id: project, trace_id: trace, include_feedback: true } },
    { page: 'trace', name: 'timeline', op: 'traces.timeline', input: { project_id: project, trace_id: trace } },
    // pages/agents/AgentsPage.tsx
    { page: 'agents', name: 'agents', op: 'agents.query', input: { project_id: project, include_costs: true, limit: 1000, sort_by: [{ field: 'last_seen', direction: 'desc' }] } },
    // pages/spans/SpansList.tsx (list mode) and GroupView.tsx (group mode, defaultGroupSpec)
    { page: 'spans', name: 'spans list page', op: 'spans.query', input: { project_id: project, include_costs: true, limit: 100, offset: 0, sort_by: [{ field: 'started_at', direction: 'desc' }] } },
    {
      page: 'spans', name: 'group view (agent_name, default measures)', op: 'spans.query',
      input: {
        project_id: project, include_costs: true, limit: 1000, group_by: [{ source: 'field', key: 'agent_name', alias: 'agent_name' }],
        measures: [{ alias: 'spans', aggregation: 'count' }, { alias: 'avg_duration_ms', aggregation: 'avg', value: { source: 'derived', key: 'duration_ms' } }],
      },
    },
    // Agents page → "spans of this agent" (SpansPage with an agent filter)
    { page: 'spans', name: 'spans of one agent', op: 'spans.query', input: { project_id: project, include_costs: true, limit: 100, offset: 0, sort_by: [{ field: 'started_at', direction: 'desc' }], query: { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: agent }] } } } },
    // pages/threads/ThreadsPage.tsx (PAGE = 200)
    { page: 'threads', name: 'threads', op: 'threads.query', input: { project_id: project, limit: 200, sort_by: [{ field: 'last_updated', direction: 'desc' }] } },
    // pages/settings/SettingsPage.tsx
    { page: 'settings', name: 'settings', op: 'system.getSettings', input: {} },
  ];
}

/** A condition `field = value`. */
const where = (field: string, value: string) => ({ $expr: { $eq: [{ $getField: field }, { $literal: value }] } });

/**
 * The reads issue 19 sets targets for at 1M and 10M spans, beyond what a page sends when it opens: a
 * common word searched (the list's newest matches first), threads sorted by a percentile, and
 * group-bys with a condition (answered from the keyed rollups on SQLite, decision 0021).
 */
export function scaleReads(project: string): UiRequest[] {
  const group = groupByAgent(project);
  return [
    { page: 'issue 19', name: "search, common word ('warehouse')", op: 'conversations.list', input: { project_id: project, search: 'warehouse', limit: 200, offset: 0, sort_by: [{ field: 'last_activity', direction: 'desc' }] } },
    { page: 'issue 19', name: 'threads by p99 turn duration', op: 'threads.query', input: { project_id: project, limit: 200, sort_by: [{ field: 'p99_turn_duration_ms', direction: 'desc' }] } },
    { page: 'issue 19', name: 'threads by p50 turn duration, ascending', op: 'threads.query', input: { project_id: project, limit: 200, sort_by: [{ field: 'p50_turn_duration_ms', direction: 'asc' }] } },
    { page: 'issue 19', name: "group by agent_name, 3 measures, where operation = 'chat'", op: 'spans.query', input: { ...group, query: where('operation_name', 'chat') } },
    { page: 'issue 19', name: "group by request_model, 3 measures, where status = 'ERROR'", op: 'spans.query', input: { ...group, group_by: [{ key: 'request_model', source: 'field' }], query: where('status_code', 'ERROR') } },
  ];
}

/**
 * Filtered group-bys (issue 19 item 2, decision 0021) for the group-by bench section: the two of
 * scaleReads, then a time window, two keys with an OR condition, and measures with filters. `window`
 * holds two instants inside the store's data (ISO).
 */
export function filteredGroupBys(project: string, window: [string, string]): UiRequest[] {
  const group = groupByAgent(project);
  const [from, to] = window;
  const chat = where('operation_name', 'chat');
  return [
    ...scaleReads(project).filter((r) => r.op === 'spans.query'),
    { page: 'issue 19', name: 'group by agent_name, 3 measures, a time window, operation = chat', op: 'spans.query', input: { ...group, started_after: from, started_before: to, query: chat } },
    {
      page: 'issue 19', name: 'group by provider and model, model in 3 or status = ERROR', op: 'spans.query',
      input: {
        ...group, group_by: [{ key: 'provider_name', source: 'field' }, { key: 'request_model', source: 'field' }],
        query: { $expr: { $or: [{ $in: [{ $getField: 'request_model' }, [{ $literal: 'gpt-4o' }, { $literal: 'o3-mini' }, { $literal: 'claude-sonnet-4-5' }]] }, where('status_code', 'ERROR').$expr] } },
      },
    },
    {
      page: 'issue 19', name: 'group by operation, measures with filters', op: 'spans.query',
      input: {
        ...group, group_by: [{ key: 'operation_name', source: 'field' }],
        measures: [
          { alias: 'chats', aggregation: 'count', filter: chat },
          { alias: 'error_tokens', aggregation: 'sum', value: { key: 'total_tokens', source: 'derived' }, filter: where('status_code', 'ERROR') },
        ],
      },
    },
  ];
}
