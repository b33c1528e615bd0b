import { z } from 'zod';
import { op } from './define.js';
import { DateTimeIn, DateTimeOut, Limit, Offset, SortDirection } from './common.js';
import { ScoreFilter, ScoreSummary } from './scores.js';

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
  /**
   * Extension (issue 18): the row's title as the Conversations page shows it (src/shared/titles.ts
   * listRowTitle): the conversation's name, else its first user message unless that is a JSON
   * document, else its agent, else its id; a bare trace: "service: root operation" (never
   * `unknown_service` alone or an unformatted template), else its agent or root operation.
   */
  title: z.string(),
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
  /**
   * For kind 'trace': the trace's root span (the chat header's root: the one span without a parent,
   * else the latest-ended), listed as trace viewers list traces — "service: root operation" and its
   * duration. Null for conversations.
   */
  trace_root: z.object({ service_name: z.string().nullable(), span_name: z.string().nullable(), duration_ms: z.number().nullable() }).nullable(),
  /** Scores of the conversation, its turns and spans, per name (issue 20): the list's score column. */
  scores: z.array(ScoreSummary).optional(),
});

/** What a search of the list looked at: everything said (3+ characters), or only what the list shows of a row (shorter queries). */
export const SEARCH_SCOPES = ['everything', 'listed_texts'] as const;

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
          /** Rows with, for each condition, a score meeting it (on the conversation, one of its turns or spans). */
          scores: z.array(ScoreFilter).max(10).optional(),
        })
        .optional(),
      /** Case-insensitive substring search over messages and attribute values; rows carry a snippet. */
      search: z.string().max(256).optional(),
      sort_by: z.array(z.strictObject({ field: z.enum(CONVERSATION_SORT_FIELDS), direction: SortDirection.default('desc') })).max(4).optional(),
      limit: Limit(1000, 100),
      /** Deprecated: use `cursor` (an offset page costs more the deeper it is, and shifts when rows arrive). */
      offset: Offset,
      /**
       * The previous answer's `next_cursor`: the page after its last row, in the same order (send the
       * same filters, search and sort_by). Lists of any length are read page by page this way.
       */
      cursor: z.string().min(1).max(4096).optional(),
    }),
    output: z.object({
      conversations: z.array(ConversationRow),
      /** Rows matching the filters and search; a lower bound when `total_count_exact` is false. */
      total_count: z.number().int(),
      /**
       * False when the store could not count every match of a common search word without reading the
       * whole list (the SQLite file: the count is then of the matches found so far, a lower bound).
       */
      total_count_exact: z.boolean(),
      /** With `search`: what it looked at (a query under 3 characters matches only names, ids, previews, agents and models). */
      search_scope: z.enum(SEARCH_SCOPES).nullable(),
      /** The cursor of the next page; null on the last page. */
      next_cursor: z.string().nullable(),
    }),
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
