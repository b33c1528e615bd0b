import { z } from 'zod';
import { op } from './define.js';
import { DateTimeIn, DateTimeOut, Limit, Offset, SortDirection } from './common.js';

/**
 * The conversations list (issue 8 item 3): one row per conversation, and one per trace in which no
 * span carries a conversation id (`kind: 'trace'`, a one-turn conversation to a user), read from
 * summaries maintained at ingest. Every column sorts server-side; filters and a text search.
 */

/** Sort fields: every column of a row (docs/store.md says what each holds). */
export const CONVERSATION_SORT_FIELDS = [
  'conversation_id', 'conversation_name', 'turn_count', 'span_count', 'error_count', 'total_input_tokens', 'total_output_tokens',
  'total_cost_usd', 'first_activity', 'last_activity',
] as const;

export const MessagePreview = z.object({ role: z.enum(['user_message', 'assistant_message']), text: z.string() });

/** A matched excerpt: plain text and the [start, end) code-unit offsets of each match inside it. */
export const SearchSnippet = z.object({ text: z.string(), matches: z.array(z.tuple([z.number().int(), z.number().int()])) });

export const ConversationRow = z.object({
  kind: z.enum(['conversation', 'trace']),
  /** The conversation id; for kind 'trace', the trace id. */
  conversation_id: z.string(),
  conversation_name: z.string().nullable(),
  first_message: MessagePreview.nullable(),
  last_message: MessagePreview.nullable(),
  turn_count: z.number().int(),
  span_count: z.number().int(),
  agent_names: z.array(z.string()),
  request_models: z.array(z.string()),
  /** By the one counting rule: equal to the chat header's totals summed over the turns. */
  total_input_tokens: z.number().int(),
  total_output_tokens: z.number().int(),
  /** Extension (issue 18, decision 0022): false when no span of the conversation reported token usage (totals unknown, "–"). */
  usage_known: z.boolean(),
  total_cost_usd: z.number().nullable(),
  error_count: z.number().int(),
  first_activity: DateTimeOut.nullable(),
  last_activity: DateTimeOut.nullable(),
  /** With `search`: where it matched; else null. */
  snippet: SearchSnippet.nullable(),
});

export const conversationOps = {
  'conversations.list': op({
    method: 'POST',
    path: '/app/conversations',
    auth: 'none',
    summary: 'The conversations list: summaries of conversations (and of traces without one), filtered, searched, sorted and paged',
    input: z.strictObject({
      project_id: z.string().min(1),
      filters: z
        .strictObject({
          /** Conversations in which one of these agents took part. */
          agent_names: z.array(z.string()).max(100).optional(),
          /** Conversations that used one of these request models. */
          models: z.array(z.string()).max(100).optional(),
          /** 'error': at least one span with status ERROR; 'ok': none. */
          status: z.enum(['all', 'error', 'ok']).default('all'),
          /** Last activity at or after / strictly before. */
          active_after: DateTimeIn.optional(),
          active_before: DateTimeIn.optional(),
        })
        .optional(),
      /** Case-insensitive substring search over messages and attribute values; rows carry a snippet. */
      search: z.string().max(256).optional(),
      sort_by: z.array(z.strictObject({ field: z.enum(CONVERSATION_SORT_FIELDS), direction: SortDirection.default('desc') })).max(4).optional(),
      limit: Limit(1000, 100),
      offset: Offset,
    }),
    output: z.object({ conversations: z.array(ConversationRow), total_count: z.number().int() }),
  }),
  'conversations.facets': op({
    method: 'POST',
    path: '/app/conversations/facets',
    auth: 'none',
    summary: "The conversations list's filter choices: every agent and request model of the project, sorted",
    input: z.strictObject({ project_id: z.string().min(1) }),
    output: z.object({ agent_names: z.array(z.string()), request_models: z.array(z.string()) }),
  }),
} as const;
