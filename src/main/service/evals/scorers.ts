/**
 * Scorer definitions of a project (issue 20 item 2), kept in this user's AppStore settings under
 * `evals.scorers:<project_id>` (decision 0024: a judge names a key in this user's secrets file), and
 * the runs that score a selection's turns with one of them.
 *
 * A run reads the selection's turns in chunks (turns.ts) and writes scores in transactions of
 * WRITE_BATCH rows, one write in flight while the next chunks are read. Before reading a chunk it asks
 * which of its turns already carry this scorer version's score (one indexed read of the chunk's
 * conversations) and skips them unread: a run stopped half-way (closed app, crash, cancelled) resumes
 * where it stopped when started again, and re-running a scorer is nearly free.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ServiceContext } from '../context.js';
import type { Judge, Rule, Scorer, ScorerInput, ScorerRun } from '../../../shared/contract/scorers.js';
import { invalid, notFound } from '../../../shared/errors.js';
import { compileRule } from '../../domain/evals/rules.js';
import type { TurnFacts } from '../../domain/evals/turn-facts.js';
import { scoreIdOf, type ScoreRecord } from '../../domain/scores.js';
import { selectedTurnChunks, type SelectionIn } from './turns.js';
import { scoredTurnsById } from './score-pages.js';
import type { TurnRef } from '../../store/ports.js';
import { judgeProject, judgeTurn, judgeCost, renderPrompt, roughTokens } from './judge.js';
import { importBuffer } from '../ingest/index.js';

export type ScorerDef = z.output<typeof Scorer>;
type ScorerIn = z.output<typeof ScorerInput>;
export type RunOut = z.output<typeof ScorerRun>;

const KEY = (projectId: string) => `evals.scorers:${projectId}`;
/**
 * Scores written in one transaction. Score ids and conversation keys are hashes, so a transaction's
 * rows land all over each of the table's B-trees: at 1M spans every transaction rewrote most of their
 * leaf pages, whatever its size. 20,000 rather than 5,000: a quarter of the page writes (40k turns at
 * 1M: 28.6 → 25.9 CPU-s, load ~22), one transaction of a few seconds at most.
 */
const WRITE_BATCH = 20_000;

export async function listScorers(ctx: ServiceContext, projectId: string): Promise<ScorerDef[]> {
  const text = await ctx.app.settings.get(KEY(projectId));
  if (!text) return [];
  try {
    return JSON.parse(text) as ScorerDef[];
  } catch {
    throw new Error(`the scorers of project '${projectId}' in settings are not readable JSON`);
  }
}

const definitionOf = (s: Pick<ScorerDef, 'name' | 'rule' | 'judge'>) => JSON.stringify({ name: s.name, rule: s.rule, judge: s.judge });

export async function saveScorer(ctx: ServiceContext, projectId: string, input: ScorerIn): Promise<ScorerDef> {
  if (input.rule) {
    try {
      compileRule(input.rule);
    } catch (e) {
      throw invalid(['body', 'scorer', 'rule'], (e as Error).message);
    }
  }
  if (input.judge?.output === 'label' && !input.judge.labels?.length) throw invalid(['body', 'scorer', 'judge', 'labels'], 'a label judge lists its labels');
  const all = await listScorers(ctx, projectId);
  const old = all.find((s) => s.scorer_id === input.scorer_id);
  const next: ScorerDef = {
    scorer_id: input.scorer_id,
    name: input.name ?? input.scorer_id,
    description: input.description ?? null,
    auto: input.auto,
    kind: input.rule ? 'rule' : 'judge',
    rule: (input.rule as Record<string, unknown> | undefined) ?? null,
    judge: (input.judge as Record<string, unknown> | undefined) ?? null,
    version: 1,
    updated_at: new Date().toISOString(),
  };
  next.version = old ? (definitionOf(old) === definitionOf(next) ? old.version : old.version + 1) : 1;
  await ctx.app.settings.set({ [KEY(projectId)]: JSON.stringify([...all.filter((s) => s.scorer_id !== input.scorer_id), next].sort((a, b) => a.scorer_id.localeCompare(b.scorer_id))) });
  return next;
}

export async function deleteScorer(ctx: ServiceContext, projectId: string, scorerId: string): Promise<boolean> {
  const all = await listScorers(ctx, projectId);
  if (!all.some((s) => s.scorer_id === scorerId)) return false;
  await ctx.app.settings.set({ [KEY(projectId)]: JSON.stringify(all.filter((s) => s.scorer_id !== scorerId)) });
  return true;
}

export async function getScorer(ctx: ServiceContext, projectId: string, scorerId: string): Promise<ScorerDef> {
  const s = (await listScorers(ctx, projectId)).find((x) => x.scorer_id === scorerId);
  if (!s) throw notFound(`project '${projectId}' has no scorer '${scorerId}'`);
  return s;
}

const versionOf = (s: ScorerDef) => `v${s.version}`;

/** The turns of a chunk this scorer version already scored. */
/** A scorer's score of a turn has one id (scoreIdOf): the chunk's check reads those ids only. */
const alreadyScored = (ctx: ServiceContext, projectId: string, s: ScorerDef) => (turns: readonly TurnRef[]) =>
  scoredTurnsById(
    ctx, projectId, turns,
    (t) => scoreIdOf({ source: s.kind, scorer: s.scorer_id, creator: null, name: s.name, target: 'turn', trace_id: t.trace_id, span_id: null, conversation_id: t.conversation_id }),
    (r) => r.scorer === s.scorer_id && r.scorer_version === versionOf(s),
  );

function scoreRow(projectId: string, s: ScorerDef, f: TurnFacts, v: { value: number | boolean | null; label: string | null; explanation: string | null }, now: bigint): ScoreRecord {
  const base = {
    project_id: projectId,
    target: 'turn' as const,
    trace_id: f.trace_id,
    span_id: null,
    conversation_id: f.conversation_id,
    conv_key: f.conversation_id ?? f.trace_id,
    agent_name: f.agent_name,
    name: s.name,
    value: typeof v.value === 'boolean' ? (v.value ? 1 : 0) : v.value,
    label: v.label,
    value_type: typeof v.value === 'boolean' ? ('boolean' as const) : v.value != null ? ('number' as const) : ('label' as const),
    explanation: v.explanation,
    source: s.kind,
    scorer: s.scorer_id,
    scorer_version: versionOf(s),
    creator: null,
    correction: null,
    created_at_ns: now,
  };
  return { ...base, score_id: scoreIdOf(base) };
}

interface RunState extends RunOut {
  controller: AbortController;
  done: Promise<void>;
}

/** Runs of this process, newest last (kept for `scorers.runs`; at most 200). */
const runs = new Map<string, RunState>();

const snapshot = ({ controller: _c, done: _d, ...r }: RunState): RunOut => ({ ...r });

export function listRuns(projectId: string): RunOut[] {
  return [...runs.values()].filter((r) => r.project_id === projectId).reverse().map(snapshot);
}

export async function estimateRun(ctx: ServiceContext, projectId: string, scorerId: string, sel: SelectionIn, clusterRows?: (id: string) => Promise<string[]>) {
  const s = await getScorer(ctx, projectId, scorerId);
  let turns = 0;
  let toScore = 0;
  let input = 0;
  let output = 0;
  const judge = s.judge as z.output<typeof Judge> | null;
  for await (const chunk of selectedTurnChunks(ctx, projectId, sel, { clusterRows, skip: alreadyScored(ctx, projectId, s) })) {
    for (const t of chunk) {
      turns += 1;
      if (!t.facts) continue;
      toScore += 1;
      if (judge) {
        input += roughTokens(renderPrompt(judge.prompt, t.facts)) + 60;
        output += Math.min(judge.max_tokens, 80);
      }
    }
  }
  return { turns, to_score: toScore, already_scored: turns - toScore, est_input_tokens: input, est_output_tokens: output, est_cost_usd: judge ? judgeCost(judge, input, output) : 0 };
}

/** Starts a run; resolves with its state at once (or once it ended when `wait`). */
export async function startRun(ctx: ServiceContext, projectId: string, scorerId: string, sel: SelectionIn, wait: boolean, clusterRows?: (id: string) => Promise<string[]>): Promise<RunOut> {
  const s = await getScorer(ctx, projectId, scorerId);
  const judge = s.judge as z.output<typeof Judge> | null;
  const apiKey = judge?.api_key_secret ? (ctx.secrets?.get(judge.api_key_secret) ?? null) : null;
  if (judge?.api_key_secret && !apiKey) throw invalid(['body', 'scorer_id'], `the judge's key '${judge.api_key_secret}' is not in the secrets file: POST /app/scorers/secret first`);
  const rule = s.rule ? compileRule(s.rule as z.output<typeof Rule>) : null;
  return launchRun(projectId, s.scorer_id, versionOf(s), judge ? 0 : null, wait, async (state, controller) => {
    let pending: ScoreRecord[] = [];
    const traced: Record<string, unknown>[] = [];
    // One write in flight while the next chunks are read; a failed write fails the run at the next flush or the end.
    let writing: Promise<void> = Promise.resolve();
    const flush = async (force = false) => {
      if (pending.length && (force || pending.length >= WRITE_BATCH)) {
        const rows = pending;
        pending = [];
        await writing;
        writing = ctx.traces.writeScores(rows).then(() => ctx.events.emit({ type: 'data.changed', project_id: projectId, tables: ['scores'] }));
        writing.catch(() => {});
      }
      if (traced.length && (force || traced.length >= 50)) {
        const lines = traced.splice(0).map((r) => JSON.stringify(r)).join('\n');
        await importBuffer(ctx.traces, Buffer.from(lines), { projectId: judgeProject(projectId) });
        ctx.events.emit({ type: 'data.changed', project_id: judgeProject(projectId), tables: ['spans'] });
      }
      if (force) await writing;
    };
    const now = BigInt(Date.now()) * 1_000_000n;
    const inflight = new Set<Promise<void>>();
    const limit = judge?.concurrency ?? 1;
    for await (const chunk of selectedTurnChunks(ctx, projectId, sel, { clusterRows, skip: alreadyScored(ctx, projectId, s) })) {
      if (controller.signal.aborted) break;
      for (const t of chunk) {
        if (controller.signal.aborted) break;
        state.turns += 1;
        const f = t.facts;
        if (!f) {
          state.skipped += 1;
          continue;
        }
        if (rule) {
          const r = rule(f);
          pending.push(scoreRow(projectId, s, f, { value: r.pass, label: null, explanation: r.explanation }, now));
          state.scored += 1;
          continue;
        }
        const call = judgeTurn(judge!, apiKey, f, { project_id: projectId, scorer_id: s.scorer_id }, (req) => traced.push(req), controller.signal)
          .then((v) => {
            pending.push(scoreRow(projectId, s, f, v, BigInt(Date.now()) * 1_000_000n));
            state.scored += 1;
            if (v.cost_usd == null) state.cost_usd = null;
            else if (state.cost_usd != null) state.cost_usd += v.cost_usd;
          })
          .catch(() => {
            state.failed += 1;
          });
        const tracked: Promise<void> = call.finally(() => inflight.delete(tracked));
        inflight.add(tracked);
        if (inflight.size >= limit) await Promise.race(inflight);
        await flush();
      }
      await flush();
    }
    await Promise.all(inflight);
    await flush(true);
  });
}

/** Registers a run and runs `body` in the background (awaited when `wait`). */
export async function launchRun(
  projectId: string,
  scorerId: string,
  version: string,
  cost: number | null,
  wait: boolean,
  body: (state: RunOut, controller: AbortController) => Promise<void>,
): Promise<RunOut> {
  const controller = new AbortController();
  const started = Date.now();
  const state: RunState = {
    run_id: randomUUID(), project_id: projectId, scorer_id: scorerId, scorer_version: version, status: 'running',
    turns: 0, scored: 0, skipped: 0, failed: 0, cost_usd: cost, started_at: new Date(started).toISOString(), ended_at: null,
    error: null, turns_per_second: null, controller, done: Promise.resolve(),
  };
  runs.set(state.run_id, state);
  if (runs.size > 200) runs.delete(runs.keys().next().value!);
  state.done = body(state, controller)
    .then(() => {
      state.status = controller.signal.aborted ? 'cancelled' : 'completed';
    })
    .catch((e: unknown) => {
      state.status = 'failed';
      state.error = e instanceof Error ? e.message : String(e);
    })
    .finally(() => {
      const ms = Date.now() - started;
      state.ended_at = new Date().toISOString();
      state.turns_per_second = ms > 0 ? Math.round(((state.scored + state.skipped) / ms) * 1000) : null;
    });
  if (wait) await state.done;
  return snapshot(state);
}

/** Stops every run of this process (server close). */
export async function stopRuns(): Promise<void> {
  for (const r of runs.values()) r.controller.abort();
  await Promise.all([...runs.values()].map((r) => r.done));
}


