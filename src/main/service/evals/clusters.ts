/**
 * Failure clusters (issue 20 item 4). The signature pass reads a selection's turns in conversation
 * order (turns.ts), computes each turn's signatures (domain/evals/signatures.ts) and stores them as
 * `failures` scores: one row per (turn, signature) with the signature as label, and a row with value
 * 0 for a turn without failure, so a later pass knows the turn is signed (resumable, incremental).
 * A score's time is the turn's start, so first/last seen and the trend are turn times.
 *
 * The Clusters view is then one read of the score-group summary both stores keep beside the scores
 * (domain/score-groups.ts, TraceStore.scoreGroups): signatures by label,
 * and low scores (any other score at most LOW) by name.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { ServiceContext } from '../context.js';
import type { Cluster } from '../../../shared/contract/clusters.js';
import type { Judge } from '../../../shared/contract/scorers.js';
import type { FeedbackRecord } from '../../../shared/contract/common.js';
import { notFound, invalid } from '../../../shared/errors.js';
import { signaturesOf, type SignatureKind } from '../../domain/evals/signatures.js';
import { scoreIdOf, type ScoreRecord } from '../../domain/scores.js';
import { FAILURES, LOW, LOW_MAX } from '../../domain/score-groups.js';
import { isoFromNs, nsFromIso } from '../../domain/time.js';
import { selectedTurnChunks, turnKey, type SelectedTurn, type SelectionIn } from './turns.js';
import { scoredTurns } from './score-pages.js';
import { getScorer, launchRun, type RunOut } from './scorers.js';
import { judgeTurn } from './judge.js';

const SIGNER = 'signatures';
const SIGNER_VERSION = 'v1';
const BATCH = 256;

type ClusterOut = z.output<typeof Cluster>;

const hashId = (prefix: string, s: string) => `${prefix}-${createHash('sha1').update(s).digest('hex').slice(0, 16)}`;

/** Negative feedback: thumbs down, false, a rating in the lower 40 % of its scale, or a negative type. */
export function isNegative(f: FeedbackRecord): boolean {
  const p = f.payload;
  const v = p.value ?? p.thumbs ?? p.score ?? p.rating;
  const type = f.feedback_type.toLowerCase();
  if (v === 'down' || v === false || v === -1 || type.includes('down') || type === 'negative') return true;
  if (typeof v === 'number' && typeof p.max === 'number' && p.max > 0) return v / p.max <= 0.4;
  return false;
}

const SIGNING_KEY = (projectId: string) => `evals.signing:${projectId}`;

/** Whether new turns of the project are signed as they arrive (on once its signatures were computed). */
export async function signingOn(ctx: ServiceContext, projectId: string): Promise<boolean> {
  return (await ctx.app.settings.get(SIGNING_KEY(projectId))) === 'on';
}

/** Runs the signature pass over a selection (all turns by default); from then on new turns are signed at ingest. */
export async function computeSignatures(ctx: ServiceContext, projectId: string, sel: SelectionIn, wait: boolean): Promise<RunOut> {
  if (!(await signingOn(ctx, projectId))) await ctx.app.settings.set({ [SIGNING_KEY(projectId)]: 'on' });
  return launchRun(projectId, SIGNER, SIGNER_VERSION, null, wait, async (state, controller) => {
    const previous = new Map<string, string | null>();
    let batch: SelectedTurn[] = [];
    const sign = async (turns: SelectedTurn[]) => {
      // Every turn is read (a signed turn's question is the next one's `previous`); signed ones are not signed again.
      const done = await scoredTurns(ctx, projectId, FAILURES, 'rule', turns, (r) => r.scorer === SIGNER && r.scorer_version === SIGNER_VERSION);
      const traceIds = turns.map((t) => t.trace_id);
      const convIds = [...new Set(turns.map((t) => t.conversation_id).filter((c): c is string => c != null))];
      const [byTrace, byConv] = await Promise.all([
        ctx.app.feedback.forTargets(projectId, 'trace', traceIds),
        convIds.length ? ctx.app.feedback.forTargets(projectId, 'conversation', convIds) : Promise.resolve(new Map<string, FeedbackRecord[]>()),
      ]);
      const rows: ScoreRecord[] = [];
      for (const t of turns) {
        const f = t.facts!;
        const key = t.conversation_id ?? `trace:${t.trace_id}`;
        const prev = previous.get(key) ?? null;
        previous.set(key, f.question);
        if (done.has(turnKey(t))) {
          state.skipped += 1;
          continue;
        }
        // Conversation feedback counts on the conversation's last turn only (one turn per conversation).
        const negative = (byTrace.get(t.trace_id) ?? []).some(isNegative) || (t.isLast === true && (byConv.get(t.conversation_id ?? '') ?? []).some(isNegative));
        const sigs = signaturesOf(f, prev, negative);
        const at = f.start_ns ?? BigInt(Date.now()) * 1_000_000n;
        const base = {
          project_id: projectId, target: 'turn' as const, trace_id: t.trace_id, span_id: null, conversation_id: t.conversation_id,
          conv_key: t.conversation_id ?? t.trace_id, agent_name: f.agent_name, source: 'rule' as const, scorer: SIGNER,
          scorer_version: SIGNER_VERSION, creator: null, correction: null, created_at_ns: at,
        };
        if (!sigs.length) {
          const r = { ...base, name: FAILURES, value: 0, label: null, value_type: 'number' as const, explanation: null };
          rows.push({ ...r, score_id: scoreIdOf(r) });
        }
        for (const sg of sigs) {
          const r = { ...base, name: FAILURES, value: 1, label: sg.key, value_type: 'number' as const, explanation: sg.example?.slice(0, 2000) ?? null };
          rows.push({ ...r, score_id: scoreIdOf({ ...r, name: `${FAILURES}|${sg.key}` }) });
        }
        state.scored += 1;
      }
      if (rows.length) await ctx.traces.writeScores(rows);
    };
    let lastConv: string | null = null;
    for await (const chunk of selectedTurnChunks(ctx, projectId, sel)) {
      if (controller.signal.aborted) break;
      for (const t of chunk) {
        state.turns += 1;
        // The previous turn of a conversation was its last one when a new conversation starts.
        const conv = t.conversation_id ?? `trace:${t.trace_id}`;
        if (batch.length && lastConv !== conv) batch[batch.length - 1]!.isLast = true;
        lastConv = conv;
        batch.push(t);
        if (batch.length >= BATCH) {
          // Keep the last turn: whether it is its conversation's last is known with the next one.
          const keep = batch.pop()!;
          await sign(batch);
          batch = [keep];
        }
      }
    }
    if (batch.length) batch[batch.length - 1]!.isLast = true;
    await sign(batch);
    ctx.events.emit({ type: 'data.changed', project_id: projectId, tables: ['scores'] });
  });
}

const KINDS: [RegExp, SignatureKind][] = [
  [/^tool error · /, 'tool_error'], [/^error · /, 'error'], [/^repeated tool call · /, 'repeated_tool_call'],
  [/^length cut-off · /, 'length_cutoff'], [/^user repeated or rephrased/, 'rephrased'], [/^negative feedback$/, 'negative_feedback'],
];
const kindOf = (signature: string): SignatureKind => KINDS.find(([re]) => re.test(signature))?.[1] ?? 'error';

const NAMES_KEY = (projectId: string) => `evals.cluster-names:${projectId}`;

async function clusterNames(ctx: ServiceContext, projectId: string): Promise<Record<string, string>> {
  const text = await ctx.app.settings.get(NAMES_KEY(projectId));
  return text ? (JSON.parse(text) as Record<string, string>) : {};
}

/** The Clusters view: signature clusters and low-score clusters, largest first (one read of the score-group summary). */
export async function listClusters(ctx: ServiceContext, projectId: string, since: string | undefined, until: string | undefined, signal?: AbortSignal): Promise<ClusterOut[]> {
  const window = { project_id: projectId, since_ns: since ? nsFromIso(since) : null, until_ns: until ? nsFromIso(until) : null, examples: 20 };
  const [groups, names] = await Promise.all([ctx.traces.scoreGroups(window, { signal }), clusterNames(ctx, projectId)]);
  const out = groups.map((g): ClusterOut => {
    const low = g.kind === 'low';
    const cluster_id = hashId(low ? 'low' : 'sig', g.key);
    const signature = low ? `low score · ${g.key} < ${LOW}` : g.key;
    return {
      cluster_id, title: names[cluster_id] ?? signature, signature, kind: low ? 'low_score' : kindOf(g.key), count: g.count,
      first_seen: isoFromNs(g.first_ns), last_seen: isoFromNs(g.last_ns), agent_names: g.agent_names, trace_ids: g.trace_ids,
      trend: g.days, filter: low ? { name: g.key, max: LOW_MAX } : { name: FAILURES, label: g.key },
    };
  });
  return out.sort((a, b) => b.count - a.count || a.signature.localeCompare(b.signature));
}

export async function findCluster(ctx: ServiceContext, projectId: string, clusterId: string): Promise<ClusterOut> {
  const c = (await listClusters(ctx, projectId, undefined, undefined)).find((x) => x.cluster_id === clusterId);
  if (!c) throw notFound(`project '${projectId}' has no cluster '${clusterId}'`);
  return c;
}

/** The conversations-list keys (conversation, or trace without one) of a cluster. */
export async function clusterConversations(ctx: ServiceContext, projectId: string, clusterId: string): Promise<string[]> {
  const c = await findCluster(ctx, projectId, clusterId);
  const cond = { name: c.filter.name, min: c.filter.min ?? null, max: c.filter.max ?? null, labels: c.filter.label != null ? [c.filter.label] : null, source: null };
  const ids: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await ctx.traces.conversations({
      project_id: projectId, active_after_ns: null, active_before_ns: null, agent_names: null, models: null, status: 'all', search: null,
      scores: [cond], sort: [{ field: 'first_activity', direction: 'asc' }], limit: 1000, offset, after: null,
    });
    ids.push(...page.conversations.map((r) => r.conversation_id));
    if (page.conversations.length < 1000) return ids;
  }
}

/** A cluster's name: given by hand, or asked of a judge scorer's endpoint from the signature and examples. */
export async function nameCluster(ctx: ServiceContext, projectId: string, clusterId: string, scorerId: string | undefined, name: string | undefined): Promise<{ cluster_id: string; title: string }> {
  const c = await findCluster(ctx, projectId, clusterId);
  let title = name;
  if (!title) {
    if (!scorerId) throw invalid(['body', 'scorer_id'], 'name a judge scorer (its endpoint names the cluster) or give the name');
    const s = await getScorer(ctx, projectId, scorerId);
    if (!s.judge) throw invalid(['body', 'scorer_id'], `scorer '${scorerId}' is not a judge`);
    const judge = { ...(s.judge as z.output<typeof Judge>), output: 'label' as const, labels: undefined, prompt: '' };
    const examples = (await ctx.traces.queryScores({ project_id: projectId, name: c.filter.name, trace_id: null, conversation_id: null, span_id: null, source: null, conv_keys: null, limit: 50, after: null }))
      .filter((r) => (c.filter.label == null || r.label === c.filter.label) && r.explanation)
      .slice(0, 5)
      .map((r) => `- ${r.explanation}`);
    judge.prompt = `Give a short name (at most 8 words) for this group of failing agent turns.\nSignature: ${c.signature}\nExamples:\n${examples.join('\n')}\nAnswer as {"label": "the name"}.`;
    const apiKey = judge.api_key_secret ? (ctx.secrets?.get(judge.api_key_secret) ?? null) : null;
    const facts = { trace_id: c.trace_ids[0] ?? '', conversation_id: null, agent_name: null, question: null, answer: null, answer_span_id: null, tool_calls: [], errors: [], finish_reasons: [], duration_ms: null, tokens: 0, cost_usd: null, models: [], start_ns: null };
    const v = await judgeTurn({ ...judge, labels: undefined, output: 'label' } as never, apiKey, facts, { project_id: projectId, scorer_id: scorerId }, () => {}).catch((e: Error) => {
      throw invalid(['body', 'scorer_id'], `the judge could not name the cluster: ${e.message}`);
    });
    title = (v.label ?? '').slice(0, 120) || c.signature;
  }
  const names = await clusterNames(ctx, projectId);
  names[clusterId] = title;
  await ctx.app.settings.set({ [NAMES_KEY(projectId)]: JSON.stringify(names) });
  return { cluster_id: clusterId, title };
}
