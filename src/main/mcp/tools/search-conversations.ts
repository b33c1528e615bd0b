/**
 * search_conversations: the Conversations page's list (`conversations.list`), newest activity first,
 * searched as the page searches, one compact row per conversation (and per trace without one).
 */
import { z } from 'zod';
import { ScoreFilter } from '../../../shared/contract/scores.js';
import { KB, answerBytes, cutOrNull, fitCount } from '../budget.js';
import { cursorArg, projectArg, sinceArg, untilArg } from '../args.js';
import { decodeListCursor, encodeListCursor } from '../cursor.js';
import { chooseProject } from '../projects.js';
import { tool } from '../tool.js';
import { fmtCost, fmtTokens, quote } from '../text.js';

const Row = z.object({
  id: z.string().describe('conversation id (for kind "trace", the trace id): pass it to get_conversation'),
  kind: z.enum(['conversation', 'trace']),
  title: z.string().nullable(),
  first_user_text: z.string().nullable(),
  last_answer: z.string().nullable(),
  agents: z.array(z.string()),
  models: z.array(z.string()),
  turns: z.number().int(),
  spans: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  errors: z.number().int(),
  first_activity: z.string().nullable(),
  last_activity: z.string().nullable(),
  match: z.string().nullable().describe('with query: the excerpt that matched'),
});

const output = z.object({
  project: z.string(),
  other_projects: z.array(z.string()),
  total_count: z.number().int(),
  conversations: z.array(Row),
  next_cursor: z.string().nullable(),
  cut: z.boolean().describe('true when fewer rows than asked were returned to stay within the budget'),
});

const BUDGET = 16 * KB;
const input = z.object({
  query: z.string().max(256).optional().describe('Words said in the conversation (messages, tool arguments and results, attribute values): case-insensitive, as the Conversations page searches'),
  project: projectArg,
  agent: z.string().min(1).optional().describe('Only conversations this agent took part in (list_agents names them)'),
  score: ScoreFilter.optional().describe('Only conversations carrying this score, e.g. a failure cluster\'s filter from list_clusters ({"name":"failures","label":…}) or {"name":"helpful","max":0.5}'),
  has_error: z.boolean().optional().describe('true: only conversations with a failed span; false: only those without'),
  since: sinceArg,
  until: untilArg,
  limit: z.number().int().min(1).max(50).default(10).describe('Rows per page, 1–50 (default 10)'),
  cursor: cursorArg,
});

type Conv = z.infer<typeof Row>;

function rowText(r: Conv, i: number): string {
  const lines = [
    `${i}. ${r.id}${r.kind === 'trace' ? ' (a trace without conversation id)' : ''} — ${quote(r.title ?? r.first_user_text ?? '(no text)', 100)}`,
    `   ${r.turns} turn${r.turns === 1 ? '' : 's'} · ${r.spans} spans · agents ${r.agents.join(', ') || '–'} · ${fmtTokens(r.input_tokens)}→${fmtTokens(r.output_tokens)} tokens · ${fmtCost(r.cost_usd)} · ${r.errors} error${r.errors === 1 ? '' : 's'} · last ${r.last_activity ?? '–'}`,
  ];
  if (r.first_user_text && r.first_user_text !== r.title) lines.push(`   user: ${quote(r.first_user_text, 200)}`);
  if (r.last_answer) lines.push(`   last answer: ${quote(r.last_answer, 200)}`);
  if (r.match) lines.push(`   match: ${quote(r.match, 200)}`);
  return lines.join('\n');
}

export const searchConversations = tool({
  name: 'search_conversations',
  title: 'Search conversations',
  description:
    'Find conversations (agent runs) by what was said, by agent, by failure, by a score or failure cluster, or by time, newest activity first. ' +
    'Each row: id, title, first user text, last answer, agents, turns, tokens, cost, errors, last activity. ' +
    'Open one with get_conversation; page on with next_cursor.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const { project, others } = await chooseProject(env, args.project);
    const scope = { project, q: args.query ?? null, a: args.agent ?? null, e: args.has_error ?? null, sc: args.score ?? null, s: args.since ?? null, u: args.until ?? null };
    // The list's own keyset cursor (conversations.list next_cursor): a deep page costs what the first
    // does, and rows arriving between calls shift nothing.
    const at = decodeListCursor(args.cursor, 'search_conversations', scope);
    const list = (limit: number) => env.caller.call(
      'conversations.list',
      {
        project_id: project,
        search: args.query?.trim() ? args.query : undefined,
        filters: {
          agent_names: args.agent ? [args.agent] : undefined,
          scores: args.score ? [args.score] : undefined,
          status: args.has_error === undefined ? 'all' : args.has_error ? 'error' : 'ok',
          active_after: args.since,
          active_before: args.until,
        },
        sort_by: [{ field: 'last_activity', direction: 'desc' }],
        limit,
        ...(at.list ? { cursor: at.list } : {}),
      },
      env.signal,
    );
    const page = await list(args.limit);
    const rows: Conv[] = page.conversations.map((c) => ({
      id: c.conversation_id,
      kind: c.kind,
      title: cutOrNull(c.title, 160),
      first_user_text: cutOrNull(c.first_message?.role === 'user_message' ? c.first_message.text : null, 400),
      last_answer: cutOrNull(c.last_message?.role === 'assistant_message' ? c.last_message.text : null, 400),
      agents: c.agent_names.slice(0, 20),
      models: c.request_models.slice(0, 10),
      turns: c.turn_count,
      spans: c.span_count,
      input_tokens: c.total_input_tokens,
      output_tokens: c.total_output_tokens,
      cost_usd: c.total_cost_usd,
      errors: c.error_count,
      first_activity: c.first_activity,
      last_activity: c.last_activity,
      match: cutOrNull(c.snippet?.text, 300),
    }));
    const offset = at.position;
    const cursorAt = (listCursor: string | null, k: number) => (listCursor ? encodeListCursor('search_conversations', scope, { list: listCursor, position: offset + k }) : null);
    const build = (k: number, next: string | null) => {
      const shown = rows.slice(0, k);
      const end = offset + k;
      const structured = { project, other_projects: others, total_count: page.total_count, conversations: shown, next_cursor: next, cut: k < rows.length };
      const head =
        `${page.total_count.toLocaleString('en-US')}${page.total_count_exact ? '' : '+'} conversation${page.total_count === 1 ? '' : 's'} in project ${project}` +
        `${args.query ? ` matching ${quote(args.query, 80)}` : ''}` +
        (k ? `; rows ${offset + 1}–${end}` : '') +
        (others.length ? ` (other projects: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''})` : '');
      const tail = next ? `\nMore: call again with cursor "${next}".` : '';
      const cutNote = k < rows.length ? `\n(${rows.length - k} more rows of this page left out to stay within ${BUDGET / KB} KB; the cursor continues after the last row shown.)` : '';
      return { structured, text: `${head}:\n${shown.map((r, i) => rowText(r, offset + i + 1)).join('\n')}${cutNote}${tail}` };
    };
    const full = cursorAt(page.next_cursor, rows.length);
    // While sizing a cut page its cursor is not known yet: a stand-in as long as the next page's (same sort, ids of similar length) plus a margin.
    const standIn = (k: number) => (k === rows.length ? full : `${full ?? cursorAt('x'.repeat(160), k)}${'x'.repeat(64)}`);
    const k = fitCount(rows.length, (n) => answerBytes(build(n, standIn(n))), BUDGET);
    if (k === rows.length) return build(k, full);
    if (k === 0) return build(0, null);
    // Cut to the budget: the list's cursor after the last row shown (one more read of those rows).
    return build(k, cursorAt((await list(k)).next_cursor, k));
  },
});
