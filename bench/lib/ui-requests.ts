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

const hasConversation = { $not: { $eq: [{ $getField: 'conversation_id' }, { $literal: null }] } };

export function uiRequests({ project, conversation, trace, agent }: UiIds): UiRequest[] {
  const turns = { alias: 'turns', aggregation: 'count_distinct', value: { key: 'trace_id', source: 'field' } };
  const listCommon = { project_id: project, measures: [turns], include_costs: true, sort_by: [{ field: 'last_seen', direction: 'desc' }], limit: 200, offset: 0 };
  const traceFirst = (direction: 'asc' | 'desc') => ({
    project_id: project,
    query: { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: trace }] }, { $or: ['chat', 'generate_content', 'text_completion'].map((op) => ({ $eq: [{ $getField: 'operation_name' }, { $literal: op }] })) }] } },
    include_details: true,
    sort_by: [{ field: direction === 'asc' ? 'started_at' : 'ended_at', direction }],
    limit: 1,
  });
  return [
    // shell/Sidebar.tsx: the project switcher, on every page.
    { page: 'shell', name: 'projects', op: 'system.projects', input: {} },
    // pages/conversations/ConversationsPage.tsx + listQuery.ts + ListFilterBar.tsx
    { page: 'conversations', name: 'conversations (group by conversation_id)', op: 'spans.query', input: { ...listCommon, group_by: [{ key: 'conversation_id', source: 'field' }], query: { $expr: { $and: [hasConversation] } } } },
    {
      page: 'conversations', name: 'traces without a conversation', op: 'spans.query',
      input: { ...listCommon, group_by: [{ key: 'trace_id', source: 'field' }], group_filters: [{ measure: { aggregation: 'count', filter: { $expr: hasConversation } }, max: 0 }] },
    },
    { page: 'conversations', name: 'filter choices: agents', op: 'spans.query', input: { project_id: project, group_by: [{ key: 'agent_name', source: 'field' }], limit: 500 } },
    { page: 'conversations', name: 'filter choices: models', op: 'spans.query', input: { project_id: project, group_by: [{ key: 'request_model', source: 'field' }], limit: 500 } },
    // pages/conversations/ConversationPage.tsx (TURN_PAGE = 10)
    { page: 'conversation', name: 'conversation chat', op: 'chat.conversation', input: { project_id: project, conversation_id: conversation, include_feedback: true, limit: 10, offset: 0 } },
    // pages/trace/TracePage.tsx (chat tab, timeline tab) and the list's trace previews
    { page: 'trace', name: 'trace chat', op: 'chat.trace', input: { project_id: project, trace_id: trace, include_feedback: true } },
    { page: 'trace', name: 'timeline', op: 'traces.timeline', input: { project_id: project, trace_id: trace } },
    { page: 'conversations', name: 'trace preview (first model span)', op: 'spans.query', input: traceFirst('asc') },
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
