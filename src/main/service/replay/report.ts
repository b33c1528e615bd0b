/**
 * The replay report (docs/replay.md "The report"): each turn's original beside its replay — answer
 * and tool-sequence diffs, tokens, cost, latency, scores — and the totals. A pair is `better` or
 * `worse` when a score of both sides says so (the replay's own expected-answer check first), `same`
 * when answer and tool sequence are equal, `changed` otherwise; a replay that diverged or failed is
 * counted as that.
 */
import { diffArrays } from 'diff';
import type { z } from 'zod';
import type { OpOutput } from '../../../shared/contract/index.js';
import type { ReportRow } from '../../../shared/contract/replays.js';
import type { ServiceContext } from '../context.js';
import { readRecording, type Recording } from './recording.js';
import type { ReplayState } from './state.js';

type Row = z.output<typeof ReportRow>;
type Op = ' ' | '-' | '+';

/** Line (or step) diff with jsdiff's LCS: each element kept (' '), only in the original ('-') or only in the replay ('+'). */
export function diff(a: string[], b: string[]): [Op, string][] {
  return diffArrays(a, b).flatMap((c) => c.value.map((v): [Op, string] => [c.added ? '+' : c.removed ? '-' : ' ', v]));
}

const lines = (s: string): string[] => (s ? s.split('\n') : []);
const norm = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** 1 when the answer meets the expectation, 0 when not. */
export function checkAnswer(check: NonNullable<ReplayState['check']>, expected: string, answer: string): number {
  if (check.match === 'equals') return norm(answer).toLowerCase() === norm(expected).toLowerCase() ? 1 : 0;
  if (check.match === 'regex') return new RegExp(expected, 'i').test(answer) ? 1 : 0;
  return answer.toLowerCase().includes(expected.toLowerCase()) ? 1 : 0;
}

const ORDER: Row['outcome'][] = ['worse', 'diverged', 'failed', 'changed', 'better', 'same', 'pending'];

function outcomeOf(item: ReplayState['items'][number], orig: Recording | null, rep: Recording | null, scores: Row['scores'], order: string[]): Row['outcome'] {
  if (item.status === 'failed') return 'failed';
  if (item.status !== 'done' || !rep) return 'pending';
  if (item.diverged) return 'diverged';
  for (const name of order) {
    const s = scores[name];
    if (s && s.original !== null && s.replay !== null && s.original !== s.replay) return s.replay > s.original ? 'better' : 'worse';
  }
  const sameAnswer = norm(orig?.answer ?? '') === norm(rep.answer);
  const sameTools = (orig?.tools_used ?? []).join('\u0000') === rep.tools_used.join('\u0000');
  return sameAnswer && sameTools ? 'same' : 'changed';
}

export async function replayReport(ctx: ServiceContext, s: ReplayState, sort: string, signal?: AbortSignal): Promise<OpOutput<'replays.report'>> {
  const rows: Row[] = [];
  const scoreNames: OpOutput<'replays.report'>['score_names'] = s.check ? [{ name: s.check.name, source: 'expected' }] : [];
  for (const item of s.items) {
    const orig = await readRecording(ctx, s.project_id, item.original_trace_id, signal);
    const rep = item.replay_trace_id ? await readRecording(ctx, s.project_id, item.replay_trace_id, signal) : null;
    const scores: Row['scores'] = {};
    if (s.check) {
      const expected = s.check.expected[item.original_trace_id] ?? (item.conversation_id ? s.check.expected[item.conversation_id] : undefined);
      if (expected !== undefined) {
        scores[s.check.name] = { original: orig ? checkAnswer(s.check, expected, orig.answer) : null, replay: rep && item.status === 'done' ? checkAnswer(s.check, expected, rep.answer) : null };
      }
    }
    const origTools = orig?.tools_used ?? [];
    const repTools = rep?.tools_used ?? [];
    rows.push({
      original_trace_id: item.original_trace_id,
      replay_trace_id: item.replay_trace_id,
      conversation_id: item.conversation_id,
      outcome: outcomeOf(item, orig, rep, scores, scoreNames.map((n) => n.name)),
      original_answer: orig?.answer ?? '',
      replay_answer: rep?.answer ?? '',
      answer_diff: diff(lines(orig?.answer ?? ''), lines(rep?.answer ?? '')),
      original_tools: origTools,
      replay_tools: repTools,
      tool_diff: diff(origTools, repTools),
      original_tokens: orig && (orig.input_tokens !== null || orig.output_tokens !== null) ? (orig.input_tokens ?? 0) + (orig.output_tokens ?? 0) : null,
      replay_tokens: item.input_tokens + item.output_tokens,
      original_cost_usd: orig?.cost_usd ?? null,
      replay_cost_usd: item.cost_usd,
      original_ms: orig?.duration_ms ?? null,
      replay_ms: item.duration_ms,
      scores,
      divergence: item.divergence ?? null,
    });
  }
  const delta = (r: Row, a: number | null, b: number | null) => (a === null || b === null ? -Infinity : b - a);
  const key: Record<string, (r: Row) => number> = {
    outcome: (r) => -ORDER.indexOf(r.outcome),
    tokens_delta: (r) => delta(r, r.original_tokens, r.replay_tokens),
    cost_delta: (r) => delta(r, r.original_cost_usd, r.replay_cost_usd),
    latency_delta: (r) => delta(r, r.original_ms, r.replay_ms),
  };
  const k = key[sort];
  if (k) rows.sort((a, b) => k(b) - k(a)); // stable: ties keep the selection's order
  const count = (o: Row['outcome']) => rows.filter((r) => r.outcome === o).length;
  return {
    replay_id: s.replay_id,
    rows,
    totals: { better: count('better'), worse: count('worse'), same: count('same'), changed: count('changed'), diverged: count('diverged'), failed: count('failed'), pending: count('pending') },
    score_names: scoreNames,
  };
}
