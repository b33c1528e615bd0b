/**
 * query_scores: the scores kept about spans, turns and conversations (issue 20: people's labels, rule
 * and judge scorers, failure signatures), newest first, from `scores.query` and paged by its own
 * keyset cursor; the first page also says which score names the scope holds, with count, mean and
 * labels (`scores.summary`), so an agent learns what was scored before reading rows.
 */
import { z } from 'zod';
import { Score, ScoreSource } from '../../../shared/contract/scores.js';
import type { OpInput } from '../../../shared/contract/index.js';
import type { OpResult } from '../caller.js';
import { KB, answerBytes, cutOrNull, fitCount } from '../budget.js';
import { cursorArg, projectArg } from '../args.js';
import { decodeListCursor, encodeListCursor } from '../cursor.js';
import { MAX_PROJECTS_SEARCHED, chooseProject, projectIds } from '../projects.js';
import { tool, type ToolEnv } from '../tool.js';
import { quote } from '../text.js';

/** The contract's Score as an agent reads it: no internal id, `agent` for agent_name, long texts cut. */
const Row = Score.omit({ score_id: true, agent_name: true }).extend({
  correction: z.string().nullable().describe("a reviewer's corrected answer (cut when long)"),
  agent: z.string().nullable(),
});
type RowOut = z.infer<typeof Row>;

const NameSummary = z.object({
  name: z.string(),
  count: z.number().int(),
  mean: z.number().nullable().describe('mean of numbers and booleans (true = 1); null when every score is a label'),
  labels: z.record(z.string(), z.number().int()).describe('scores per label (the 20 most frequent)'),
});
type NameOut = z.infer<typeof NameSummary>;

const output = z.object({
  project: z.string(),
  other_projects: z.array(z.string()),
  names: z.array(NameSummary).nullable().describe('first page of a project, trace or conversation: the score names there (30 most frequent) with count, mean and labels; else null'),
  scores: z.array(Row),
  next_cursor: z.string().nullable(),
  cut: z.boolean().describe('true when fewer rows than asked were returned to stay within the budget'),
});

const BUDGET = 16 * KB;
const input = z.object({
  project: projectArg,
  name: z.string().min(1).optional().describe('Only scores of this name (names: the first answer\'s "names"; "failures" holds the failure signatures list_clusters groups)'),
  trace_id: z.string().min(1).optional().describe('Only scores about this trace (a turn) or its spans'),
  conversation_id: z.string().min(1).optional().describe('Only scores about this conversation, its turns or spans'),
  span_id: z.string().min(1).optional().describe('Only scores about this span'),
  source: ScoreSource.optional().describe('human (people\'s labels), rule (rule scorers, failure signatures) or judge (LLM judges)'),
  limit: z.number().int().min(1).max(100).default(20).describe('Rows per page, 1–100 (default 20; fewer when the budget is reached)'),
  cursor: cursorArg,
});
type Args = z.output<typeof input>;

type Scores = OpResult<'scores.query'>;
const TOP_LABELS = 20;
const MAX_NAMES = 30;

const rowOf = (s: Scores['scores'][number]): RowOut => ({
  name: s.name, target: s.target, value: s.value, label: s.label, explanation: cutOrNull(s.explanation, 400, 'the whole text: POST /app/scores/query'),
  source: s.source, scorer: s.scorer, scorer_version: s.scorer_version, creator: s.creator,
  correction: cutOrNull(s.correction, 600, 'the whole correction: POST /app/scores/query'), trace_id: s.trace_id, span_id: s.span_id,
  conversation_id: s.conversation_id, agent: s.agent_name, created_at: s.created_at,
});

function rowText(r: RowOut, i: number): string {
  const value = r.label != null ? `label ${quote(r.label, 120)}${r.value != null ? ` (${String(r.value)})` : ''}` : String(r.value ?? '–');
  const about = r.target === 'span' ? `span ${r.span_id} of trace ${r.trace_id}` : r.target === 'turn' ? `turn (trace ${r.trace_id})` : `conversation ${r.conversation_id}`;
  const who = r.source === 'human' ? `by ${r.creator ?? 'a person'}` : `${r.source} ${r.scorer ?? ''}${r.scorer_version ? ` ${r.scorer_version}` : ''}`.trimEnd();
  const lines = [`${i}. ${r.name} = ${value} · ${about}${r.conversation_id && r.target !== 'conversation' ? ` in conversation ${r.conversation_id}` : ''}${r.agent ? ` · agent ${r.agent}` : ''} · ${who} · ${r.created_at}`];
  if (r.explanation) lines.push(`   why: ${quote(r.explanation, 520)}`); // room for the cut marker rowOf left
  if (r.correction) lines.push(`   correction: ${quote(r.correction, 720)}`);
  return lines.join('\n');
}

const nameText = (n: NameOut) => {
  const labels = Object.entries(n.labels).map(([l, c]) => `${l} ×${c}`).join(', ');
  return `- ${n.name}: ${n.count} score${n.count === 1 ? '' : 's'}${n.mean != null ? ` · mean ${Math.round(n.mean * 1000) / 1000}` : ''}${labels ? ` · labels ${labels}` : ''}`;
};

/**
 * The score names of a project, trace or conversation, summed over the summary's keys (agents for
 * a project): count, mean weighted by count, label counts. Null where the summary has no such scope.
 */
async function namesOf(env: ToolEnv, project: string, args: Args): Promise<NameOut[] | null> {
  if (args.span_id !== undefined || args.source !== undefined || (args.trace_id !== undefined && args.conversation_id !== undefined)) return null;
  const by = args.trace_id !== undefined ? 'trace' : args.conversation_id !== undefined ? 'conversation' : 'agent';
  const keys = args.trace_id ?? args.conversation_id;
  const r = await env.caller.call(
    'scores.summary',
    { project_id: project, by, ...(keys !== undefined ? { keys: [keys] } : {}), ...(args.name !== undefined ? { names: [args.name] } : {}) },
    env.signal,
  );
  const byName = new Map<string, { count: number; sum: number; numeric: number; labels: Map<string, number> }>();
  for (const s of r.summaries) {
    const n = byName.get(s.name) ?? byName.set(s.name, { count: 0, sum: 0, numeric: 0, labels: new Map() }).get(s.name)!;
    n.count += s.count;
    // Agents' means weighted by their counts: exact when a name's scores all carry a value (or none does).
    if (s.mean != null) {
      n.sum += s.mean * s.count;
      n.numeric += s.count;
    }
    for (const [l, c] of Object.entries(s.labels)) n.labels.set(l, (n.labels.get(l) ?? 0) + c);
  }
  return [...byName.entries()]
    .map(([name, n]) => ({
      name, count: n.count, mean: n.numeric ? n.sum / n.numeric : null,
      labels: Object.fromEntries([...n.labels.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP_LABELS)),
    }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, MAX_NAMES);
}

const fitsCursor = (cursor: string, scope: unknown): boolean => {
  try {
    decodeListCursor(cursor, 'query_scores', scope);
    return true;
  } catch {
    return false;
  }
};

export const queryScores = tool({
  name: 'query_scores',
  title: 'Query scores',
  description:
    'Scores kept about spans, turns (traces) and conversations — people\'s labels and corrections, rule and LLM-judge scorers, failure signatures — ' +
    'newest first, optionally of one name, trace, conversation, span or source. Each row: name, value or label, explanation, who scored it ' +
    '(person, rule or judge with its version), what it is about (trace, span, conversation ids) and when. The first page also lists the score ' +
    'names with count, mean and labels. Page on with next_cursor; list_clusters groups failures.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const scoped = args.trace_id ?? args.conversation_id ?? args.span_id;
    const filter = { name: args.name, trace_id: args.trace_id, conversation_id: args.conversation_id, span_id: args.span_id, source: args.source };
    const query = (project: string, limit: number, cursor: string | null) =>
      env.caller.call('scores.query', { project_id: project, ...filter, limit, ...(cursor ? { cursor } : {}) } satisfies OpInput<'scores.query'>, env.signal);
    // An id without a project: the first project (most recent first) holding scores about it.
    let project: string;
    let others: string[] = [];
    let first: Scores | null = null;
    let searched = 0;
    if (args.project === undefined && scoped !== undefined && args.cursor === undefined) {
      const all = (await projectIds(env)).slice(0, MAX_PROJECTS_SEARCHED);
      project = all[0] ?? (await chooseProject(env, undefined)).project;
      for (const p of all) {
        searched += 1;
        const page = await query(p, args.limit, null);
        if (page.scores.length) {
          project = p;
          first = page;
          break;
        }
      }
    } else if (args.project === undefined && scoped !== undefined) {
      // A later page of an id's scores: the project whose arguments the cursor was made for.
      const all = (await projectIds(env)).slice(0, MAX_PROJECTS_SEARCHED);
      project = all.find((p) => fitsCursor(args.cursor!, { project: p, ...filter })) ?? (await chooseProject(env, undefined)).project;
    } else ({ project, others } = await chooseProject(env, args.project));
    const scope = { project, ...filter };
    const at = decodeListCursor(args.cursor, 'query_scores', scope);
    const [page, names] = await Promise.all([
      first ?? query(project, args.limit, at.list),
      at.position === 0 ? namesOf(env, project, args) : Promise.resolve(null),
    ]);
    const rows = page.scores.map(rowOf);
    const offset = at.position;
    const cursorAt = (listCursor: string | null, k: number) => (listCursor ? encodeListCursor('query_scores', scope, { list: listCursor, position: offset + k }) : null);
    const what = [
      args.name && `named ${quote(args.name, 80)}`, args.trace_id && `about trace ${args.trace_id}`, args.conversation_id && `about conversation ${args.conversation_id}`,
      args.span_id && `about span ${args.span_id}`, args.source && `from ${args.source} scoring`,
    ].filter(Boolean).join(', ');
    const build = (k: number, next: string | null) => {
      const shown = rows.slice(0, k);
      const structured = { project, other_projects: others, names, scores: shown, next_cursor: next, cut: k < rows.length };
      if (!rows.length && offset === 0) {
        const where = searched > 1 ? `any of the ${searched} projects` : `project ${project}`;
        const hint = 'scores come from people\'s labels (POST /app/scores/create), rule or judge scorers (/app/scorers/run) and failure signatures (/app/clusters/compute)';
        return { structured, text: `No scores${what ? ` ${what}` : ''} in ${where}: ${hint}.` };
      }
      const head = `Scores${what ? ` ${what}` : ''} in project ${project}, newest first${k ? `; rows ${offset + 1}–${offset + k}` : ''}:`;
      const namesText = names?.length ? `Score names here:\n${names.map(nameText).join('\n')}\n` : '';
      const cutNote = k < rows.length ? `\n(${rows.length - k} more rows of this page left out to stay within ${BUDGET / KB} KB; the cursor continues after the last row shown.)` : '';
      const tail = next ? `\nMore: call again with the same arguments and cursor "${next}".` : '';
      return { structured, text: `${namesText}${head}\n${shown.map((r, i) => rowText(r, offset + i + 1)).join('\n')}${cutNote}${tail}` };
    };
    const full = cursorAt(page.next_cursor, rows.length);
    // A cut page's cursor is not known while sizing it: a stand-in as long as a real one plus a margin.
    const standIn = (k: number) => (k === rows.length ? full : `${full ?? cursorAt('x'.repeat(120), k)}${'x'.repeat(64)}`);
    const k = fitCount(rows.length, (n) => answerBytes(build(n, standIn(n))), BUDGET);
    if (k === rows.length) return build(k, full);
    if (k === 0) return build(0, null);
    // Cut to the budget: the operation's cursor after the last row shown (one more read of those rows).
    return build(k, cursorAt((await query(project, k, at.list)).next_cursor, k));
  },
});
