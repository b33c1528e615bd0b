/**
 * The replay report (docs/replay.md "The report"): each turn's original beside its replay — answer
 * and tool-sequence diffs, tokens, cost, latency, scores — and the totals. A pair is `better` or
 * `worse` when a score of both sides says so (the replay's own expected-answer check first), `same`
 * when answer and tool sequence are equal, `changed` otherwise; a replay that diverged or failed is
 * counted as that. The chosen scorers of the project score both sides: a rule scorer is applied to
 * both turns as the report is read (always its current version); a judge's stored scores of both
 * traces are read (run the judge over the conversations to fill them). Each score's totals carry the
 * sign test of the change (domain/sign-test.ts).
 */
import { diffArrays } from 'diff';
import type { z } from 'zod';
import type { OpOutput } from '../../../shared/contract/index.js';
import type { ReportRow } from '../../../shared/contract/replays.js';
import type { Rule } from '../../../shared/contract/scorers.js';
import type { ServiceContext } from '../context.js';
import { compileRule } from '../../domain/evals/rules.js';
import { turnFacts } from '../../domain/evals/turn-facts.js';
import { signTest } from '../../domain/sign-test.js';
import { getScorer, type ScorerDef } from '../evals/scorers.js';
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

type ScoreOf = (traceId: string) => Promise<number | null>;

/** How one chosen scorer scores a turn of the replay's project: a rule applied now, or a judge's stored score. */
function scorerOf(ctx: ServiceContext, projectId: string, def: ScorerDef, signal?: AbortSignal): ScoreOf {
  if (def.rule) {
    const rule = compileRule(def.rule as z.output<typeof Rule>);
    return async (traceId) => {
      const spans = await ctx.traces.traceSpans(projectId, traceId, { signal });
      if (!spans.length) return null;
      return rule(turnFacts(spans, spans[0]!.conversation_id ?? null)).pass ? 1 : 0;
    };
  }
  return async (traceId) => {
    const rows = await ctx.traces.queryScores({ project_id: projectId, name: def.name, trace_id: traceId, conversation_id: null, span_id: null, source: null, conv_keys: null, limit: 50, after: null });
    const r = rows.find((x) => x.scorer === def.scorer_id && x.target === 'turn' && x.value !== null);
    return r?.value ?? null;
  };
}

const COMPARED = new Set<Row['outcome']>(['better', 'worse', 'same', 'changed']);

/**
 * Per score name over the compared pairs (a diverged, failed or pending replay has no answer of its
 * own to compare; the totals count those apart) where both sides have it: means, moves up/down, and the sign test.
 */
function scoreTotals(rows: Row[], names: string[]): OpOutput<'replays.report'>['score_totals'] {
  return names.map((name) => {
    const pairs = rows.filter((r) => COMPARED.has(r.outcome)).map((r) => r.scores[name]).filter((x): x is { original: number; replay: number } => !!x && x.original !== null && x.replay !== null);
    const mean = (k: 'original' | 'replay') => (pairs.length ? pairs.reduce((a, p) => a + p[k], 0) / pairs.length : null);
    const up = pairs.filter((p) => p.replay > p.original).length;
    const down = pairs.filter((p) => p.replay < p.original).length;
    return { name, pairs: pairs.length, original_mean: mean('original'), replay_mean: mean('replay'), up, down, ...signTest(up, down) };
  });
}

export async function replayReport(ctx: ServiceContext, s: ReplayState, sort: string, signal?: AbortSignal): Promise<OpOutput<'replays.report'>> {
  const rows: Row[] = [];
  const scoreNames: OpOutput<'replays.report'>['score_names'] = s.check ? [{ name: s.check.name, source: 'expected', scorer_id: null }] : [];
  const scorers: { name: string; of: ScoreOf }[] = [];
  for (const id of s.scorers ?? []) {
    const def = await getScorer(ctx, s.project_id, id).catch(() => null); // deleted since: left out
    if (!def || scoreNames.some((n) => n.name === def.name)) continue;
    scoreNames.push({ name: def.name, source: 'scorer', scorer_id: def.scorer_id });
    scorers.push({ name: def.name, of: scorerOf(ctx, s.project_id, def, signal) });
  }
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
    for (const sc of scorers) {
      scores[sc.name] = { original: orig ? await sc.of(item.original_trace_id) : null, replay: rep && item.status === 'done' ? await sc.of(item.replay_trace_id!) : null };
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
    score_totals: scoreTotals(rows, scoreNames.map((n) => n.name)),
  };
}
