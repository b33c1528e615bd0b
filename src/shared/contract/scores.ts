import { z } from 'zod';
import { op } from './define.js';
import { DateTimeIn, DateTimeOut } from './common.js';

/**
 * Scores (issue 20): a name and a value — a number, a label or a boolean — about a span, a turn (a
 * trace of a conversation) or a conversation, with an optional explanation and where it came from
 * (a person, a rule, an LLM judge, with the scorer's version). Kept in the trace store: on a team's
 * ClickHouse everyone reads everyone's scores and review labels (decision 0024).
 */

export const ScoreTarget = z.enum(['span', 'turn', 'conversation']);
export const ScoreSource = z.enum(['human', 'rule', 'judge']);

/** A stored score as every operation answers it. */
export const Score = z.object({
  score_id: z.string(),
  target: ScoreTarget,
  name: z.string(),
  /** A number, a boolean, or null when the score is a label. */
  value: z.union([z.number(), z.boolean()]).nullable(),
  label: z.string().nullable(),
  explanation: z.string().nullable(),
  source: ScoreSource,
  scorer: z.string().nullable(),
  scorer_version: z.string().nullable(),
  creator: z.string().nullable(),
  /** A reviewer's corrected answer (the original stays in the span). */
  correction: z.string().nullable(),
  trace_id: z.string().nullable(),
  span_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
  agent_name: z.string().nullable(),
  created_at: DateTimeOut,
});

export const NewScore = z.strictObject({
  target: ScoreTarget,
  /** The turn's trace (turn), the span's trace (span); not needed for a conversation. */
  trace_id: z.string().min(1).optional(),
  span_id: z.string().min(1).optional(),
  /** The conversation (conversation); for a turn, the conversation it is a turn of (default: the trace's). */
  conversation_id: z.string().min(1).optional(),
  name: z.string().min(1).max(200),
  value: z.union([z.number().finite(), z.boolean()]).nullable().optional(),
  label: z.string().max(200).nullable().optional(),
  explanation: z.string().max(20_000).nullable().optional(),
  source: ScoreSource.default('human'),
  scorer: z.string().max(200).nullable().optional(),
  scorer_version: z.string().max(200).nullable().optional(),
  creator: z.string().max(200).nullable().optional(),
  correction: z.string().max(200_000).nullable().optional(),
  /** Default: the span's (or turn's) agent. */
  agent_name: z.string().nullable().optional(),
  created_at: DateTimeIn.optional(),
});

/** A condition on scores: a score `name` (of `source`) with value in [min, max] and/or one of `labels`. */
export const ScoreFilter = z.strictObject({
  name: z.string().min(1).max(200),
  min: z.number().finite().optional(),
  max: z.number().finite().optional(),
  label: z.string().optional(),
  labels: z.array(z.string()).max(1000).optional(),
  source: ScoreSource.optional(),
});

export const ScoreSummary = z.object({
  /** The agent, conversation (or trace without one), or trace; null for scores without an agent. */
  key: z.string().nullable(),
  name: z.string(),
  count: z.number().int(),
  /** Mean of the numbers and booleans (true = 1); null when every score is a label. */
  mean: z.number().nullable(),
  /** Scores per label. */
  labels: z.record(z.string(), z.number().int()),
});

export const scoreOps = {
  'scores.create': op({
    method: 'POST',
    path: '/app/scores/create',
    auth: 'none',
    summary:
      'Stores scores about spans, turns or conversations. A score is one per (person or scorer, name, target): writing it again replaces it. 422 naming the score when its target is unknown.',
    input: z.strictObject({ project_id: z.string().min(1), scores: z.array(NewScore).min(1).max(1000) }),
    output: z.object({ scores: z.array(Score) }),
  }),
  'scores.query': op({
    method: 'POST',
    path: '/app/scores/query',
    auth: 'none',
    summary: "A project's scores, newest first, optionally of one name, trace, conversation or span; paged by next_cursor.",
    input: z.strictObject({
      project_id: z.string().min(1),
      name: z.string().optional(),
      trace_id: z.string().optional(),
      conversation_id: z.string().optional(),
      span_id: z.string().optional(),
      source: ScoreSource.optional(),
      limit: z.number().int().min(1).max(1000).default(100),
      /** The previous page's next_cursor (same filters). */
      cursor: z.string().optional(),
    }),
    output: z.object({ scores: z.array(Score), next_cursor: z.string().nullable() }),
  }),
  'scores.delete': op({
    method: 'POST',
    path: '/app/scores/delete',
    auth: 'none',
    summary: 'Deletes scores of a project by score_id; answers how many there were.',
    input: z.strictObject({ project_id: z.string().min(1), score_ids: z.array(z.string().min(1)).min(1).max(1000) }),
    output: z.object({ deleted: z.number().int() }),
  }),
  'scores.summary': op({
    method: 'POST',
    path: '/app/scores/summary',
    auth: 'none',
    summary: 'Score summaries (count, mean, label counts) per agent, per conversation (list row) or per trace, optionally for some keys and names.',
    input: z.strictObject({
      project_id: z.string().min(1),
      by: z.enum(['agent', 'conversation', 'trace']).default('agent'),
      keys: z.array(z.string()).max(1000).optional(),
      names: z.array(z.string()).max(100).optional(),
    }),
    output: z.object({ summaries: z.array(ScoreSummary) }),
  }),
} as const;
