/**
 * Scores (issue 20): a name and a value (a number, a label or a boolean) about a span, a turn (one
 * trace of a conversation) or a conversation, with an optional explanation, where it came from (a
 * person, a rule, an LLM judge) and the scorer's version. Stored in the TraceStore (decision 0024):
 * on a team's ClickHouse everyone sees everyone's scores and review labels.
 *
 * Every score row carries what it is attached to, whatever its target: the trace (null for a
 * conversation score), the span (span scores only), the conversation (null for a trace outside any
 * conversation), the conversations list's row key `conv_key` (the conversation, else the trace) and
 * the agent it is about. So a filter or a summary is one indexed read of the scores table, never a
 * walk of spans.
 */
import { createHash } from 'node:crypto';

export type ScoreTarget = 'span' | 'turn' | 'conversation';
export type ScoreSource = 'human' | 'rule' | 'judge';
export type ScoreValueType = 'number' | 'label' | 'boolean';

export const SCORE_TARGETS: readonly ScoreTarget[] = ['span', 'turn', 'conversation'];
export const SCORE_SOURCES: readonly ScoreSource[] = ['human', 'rule', 'judge'];

/** A stored score, as both adapters keep it. */
export interface ScoreRecord {
  project_id: string;
  score_id: string;
  target: ScoreTarget;
  trace_id: string | null;
  span_id: string | null;
  conversation_id: string | null;
  /** The conversations list's row this score belongs to: the conversation, else the trace. */
  conv_key: string;
  agent_name: string | null;
  name: string;
  /** Numbers as they are; booleans as 1 / 0; null for a label. */
  value: number | null;
  label: string | null;
  value_type: ScoreValueType;
  explanation: string | null;
  source: ScoreSource;
  /** The scorer's id (rule / judge), null for a person's label. */
  scorer: string | null;
  scorer_version: string | null;
  /** Who labelled (human scores). */
  creator: string | null;
  /** The assistant's answer as a reviewer corrected it (kept beside the original, which stays in the span). */
  correction: string | null;
  created_at_ns: bigint;
}

/**
 * The stable id of a score: one per (scorer or person, name, target). Re-running a scorer replaces
 * its scores; a person relabelling a turn replaces their own label, never another person's.
 */
export function scoreIdOf(s: Pick<ScoreRecord, 'source' | 'scorer' | 'creator' | 'name' | 'target' | 'trace_id' | 'span_id' | 'conversation_id'>): string {
  const who = s.source === 'human' ? `human:${s.creator ?? ''}` : `${s.source}:${s.scorer ?? ''}`;
  const at = s.target === 'conversation' ? s.conversation_id : s.target === 'turn' ? `${s.trace_id}|${s.conversation_id ?? ''}` : `${s.trace_id}|${s.span_id}`;
  return createHash('sha1').update(`${who}\u0000${s.name}\u0000${s.target}\u0000${at}`).digest('hex').slice(0, 32);
}

/**
 * A condition on scores, as `$score` in `$expr` and the conversations list's `scores` filter hold it:
 * a score named `name` (optionally of one source) whose value lies in [min, max] and/or whose label
 * is one of `labels`. With neither bound nor labels: "has such a score".
 */
export interface ScoreCond {
  name: string;
  min: number | null;
  max: number | null;
  labels: string[] | null;
  source: ScoreSource | null;
}

/** What a page of `POST /app/scores/query` reads. */
export interface ScoresQuery {
  project_id: string;
  name: string | null;
  trace_id: string | null;
  conversation_id: string | null;
  span_id: string | null;
  /** The row key of the conversations list (conversation, or trace without one). */
  conv_keys: string[] | null;
  source: ScoreSource | null;
  limit: number;
  /** Exclusive: the last row of the previous page (newest first: created_at desc, score_id desc). */
  after: { created_at_ns: bigint; score_id: string } | null;
  /** Only scores carrying a reviewer's correction (an SFT dataset from reviews reads no other). */
  with_correction?: boolean;
  /** Only these score ids (a scorer's own scores of a chunk of turns: read by key, never the chunk's other scores). */
  score_ids?: readonly string[];
}

/** Per-group summary of one score name: how many, the mean of numbers / booleans, and label counts. */
export interface ScoreStat {
  /** The group's key: an agent name, a conversations-list key, or a trace id. */
  key: string | null;
  name: string;
  count: number;
  mean: number | null;
  labels: Record<string, number>;
}

export type ScoreStatsBy = 'agent_name' | 'conv_key' | 'trace_id';

// ---------------------------------------------------------------- cursor

export function encodeScoreCursor(k: { created_at_ns: bigint; score_id: string }): string {
  return Buffer.from(JSON.stringify([k.created_at_ns.toString(), k.score_id])).toString('base64url');
}

export function decodeScoreCursor(c: string): { created_at_ns: bigint; score_id: string } | null {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !/^\d+$/.test(v[0]) || typeof v[1] !== 'string') return null;
    return { created_at_ns: BigInt(v[0]), score_id: v[1] };
  } catch {
    return null;
  }
}

/** Rows both adapters read for stats: per (key, name, label) the count, and the sum and count of values. */
export interface ScoreStatRow {
  key: string | null;
  name: string;
  label: string | null;
  n: number;
  sum: number | null;
  nums: number;
}

/** Folds per-(key, name, label) rows into ScoreStats, sorted by key then name. */
export function foldStats(rows: readonly ScoreStatRow[]): ScoreStat[] {
  const out = new Map<string, ScoreStat & { sum: number; nums: number }>();
  for (const r of rows) {
    const id = `${r.key ?? ''}\u0000${r.name}`;
    let s = out.get(id);
    if (!s) out.set(id, (s = { key: r.key, name: r.name, count: 0, mean: null, labels: {}, sum: 0, nums: 0 }));
    s.count += Number(r.n);
    s.sum += Number(r.sum ?? 0);
    s.nums += Number(r.nums);
    if (r.label != null) s.labels[r.label] = (s.labels[r.label] ?? 0) + Number(r.n);
  }
  return [...out.values()]
    .map(({ sum, nums, ...s }) => ({ ...s, mean: nums ? sum / nums : null }))
    .sort((a, b) => (a.key ?? '').localeCompare(b.key ?? '') || a.name.localeCompare(b.name));
}

