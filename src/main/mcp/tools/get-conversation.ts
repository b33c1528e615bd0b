/**
 * get_conversation: a conversation's chat turn by turn (`chat.conversation`, the Chat page's read),
 * or, for a trace that carries no conversation id, that trace's chat as one turn (`chat.tracePage`,
 * paged, so a 20,000-span trace reads in pieces). Turns are counted from the first (0).
 */
import { z } from 'zod';
import type { Turn } from '../../../shared/contract/chat.js';
import { KB, answerBytes, fitCount } from '../budget.js';
import { projectArg } from '../args.js';
import { StepSchema, stepText, toStep, type Step } from '../chat-steps.js';
import { findInProjects } from '../projects.js';
import type { OpResult } from '../caller.js';
import { ToolError, tool, type ToolEnv } from '../tool.js';
import { fmtCost, fmtMs, fmtTokens } from '../text.js';

const TurnSchema = z.object({
  turn: z.number().int().describe('position of the turn in the conversation, 0 = first'),
  trace_id: z.string(),
  started_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  status: z.enum(['UNSET', 'OK', 'ERROR']).nullable(),
  agent: z.string().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  step_count: z.number().int().nullable().describe('steps in the turn (null while unknown for a very large trace)'),
  steps: z.array(StepSchema),
});
type TurnOut = z.infer<typeof TurnSchema>;

const output = z.object({
  project: z.string(),
  conversation_id: z.string(),
  kind: z.enum(['conversation', 'trace']),
  title: z.string().nullable().describe('the conversation\'s title, as search_conversations lists it (null for a trace without conversation)'),
  total_turns: z.number().int(),
  turns: z.array(TurnSchema),
  next: z
    .object({ turn_from: z.number().int(), step_from: z.number().int() })
    .nullable()
    .describe('arguments that continue where this answer stopped; null at the end'),
  cut: z.boolean(),
});

const BUDGET = 24 * KB;
/** Messages of a trace's chat read per call (the page's own paging unit). */
const TRACE_PAGE = 200;

const input = z.object({
  conversation_id: z.string().min(1).describe('id from search_conversations (for a trace without conversation, its trace id)'),
  project: projectArg,
  turn_from: z.number().int().min(0).default(0).describe('first turn to read, 0 = the first turn of the conversation'),
  step_from: z.number().int().min(0).default(0).describe('first step to read within turn_from (to continue a long turn)'),
  limit: z.number().int().min(1).max(20).default(3).describe('turns to read, 1–20 (default 3)'),
});

type Found = { kind: 'conversation'; total: number; title: string | null } | { kind: 'trace'; total: 1; page: OpResult<'chat.tracePage'> };

/** A conversation with this id, else a trace with it (read at once: its first page is the answer). */
async function probe(env: ToolEnv, project: string, id: string, stepFrom: number): Promise<Found | null> {
  const conv = await env.caller.call('chat.conversation', { project_id: project, conversation_id: id, limit: 0 }, env.signal);
  if (conv.total_turns > 0) return { kind: 'conversation', total: conv.total_turns, title: conv.title };
  const page = await env.caller.call('chat.tracePage', { project_id: project, trace_id: id, offset: stepFrom, limit: TRACE_PAGE }, env.signal);
  return page.messages.length || page.turn.started_at ? { kind: 'trace', total: 1, page } : null;
}

const turnHead = (t: Turn | Omit<Turn, 'messages'>, index: number, stepCount: number | null): Omit<TurnOut, 'steps'> => ({
  turn: index,
  trace_id: t.trace_id,
  started_at: t.started_at,
  duration_ms: t.total_duration_ms,
  status: t.status_code,
  agent: t.agent_name,
  input_tokens: t.total_input_tokens,
  output_tokens: t.total_output_tokens,
  cost_usd: t.total_cost_usd,
  step_count: stepCount,
});

function turnText(t: TurnOut): string {
  const head = `Turn ${t.turn} — trace ${t.trace_id} · ${t.started_at ?? 'no start time'} · ${fmtMs(t.duration_ms)} · ${t.status ?? 'UNSET'} · ${fmtTokens(t.input_tokens)}→${fmtTokens(t.output_tokens)} tokens · ${fmtCost(t.cost_usd)}`;
  return [head, ...t.steps.map(stepText)].join('\n');
}

export const getConversation = tool({
  name: 'get_conversation',
  title: 'Read a conversation',
  description:
    'A conversation as a chat, turn by turn from the first: who spoke (user, agent by name, tool), the text, each tool call with ' +
    'its arguments and result, errors with type and message, span ids for get_span, and per-turn tokens, cost and duration. ' +
    'Long values are cut (get_span reads them whole). Continue with the arguments in `next`.',
  budget: BUDGET,
  input,
  output,
  async run(args, env) {
    const id = args.conversation_id;
    const { project, value: found } = await findInProjects(env, args.project, `conversation "${id}"`, (p) => probe(env, p, id, args.step_from));
    if (args.turn_from >= found.total) throw new ToolError(`argument "turn_from": the conversation has ${found.total} turn${found.total === 1 ? '' : 's'} (0–${found.total - 1})`);
    let turns: { head: Omit<TurnOut, 'steps'>; steps: Step[]; more: boolean }[];
    if (found.kind === 'conversation') {
      const count = Math.min(args.limit, found.total - args.turn_from);
      const page = await env.caller.call(
        'chat.conversation',
        { project_id: project, conversation_id: id, limit: count, offset: found.total - args.turn_from - count },
        env.signal,
      );
      turns = page.turns.map((t, i) => {
        const from = i === 0 ? args.step_from : 0;
        return { head: turnHead(t, args.turn_from + i, t.messages.length), steps: t.messages.slice(from).map((m, j) => toStep(m, from + j, t.trace_id)), more: false };
      });
    } else {
      const page = found.page;
      turns = [{ head: turnHead({ ...page.turn, trace_id: id }, 0, page.total_messages), steps: page.messages.map((m, j) => toStep(m, args.step_from + j, id)), more: page.has_more }];
    }
    const total = turns.reduce((n, t) => n + t.steps.length, 0);
    const build = (k: number) => {
      let left = k;
      const shown: TurnOut[] = [];
      let next: { turn_from: number; step_from: number } | null = null;
      for (const t of turns) {
        if (left <= 0 && next) break;
        const steps = t.steps.slice(0, Math.max(0, left));
        left -= steps.length;
        shown.push({ ...t.head, steps });
        if (steps.length < t.steps.length || t.more) {
          next = { turn_from: t.head.turn, step_from: (steps.at(-1)?.step ?? (t.steps[0]?.step ?? 0) - 1) + 1 };
          break;
        }
      }
      const last = turns.at(-1)?.head.turn ?? args.turn_from;
      if (!next && last + 1 < found.total) next = { turn_from: last + 1, step_from: 0 };
      const cut = k < total;
      const title = found.kind === 'conversation' ? found.title : null;
      const structured = { project, conversation_id: id, kind: found.kind, title, total_turns: found.total, turns: shown, next, cut };
      const head = `${found.kind === 'trace' ? 'Trace' : 'Conversation'} ${id}${title ? ` "${title}"` : ''} in project ${project}: ${found.total} turn${found.total === 1 ? '' : 's'}`;
      const tail = next ? `\nMore: get_conversation with turn_from=${next.turn_from}, step_from=${next.step_from}${cut ? ` (the rest was left out to stay within ${BUDGET / KB} KB)` : ''}.` : '\n(end of the conversation)';
      return { structured, text: `${head}\n${shown.map(turnText).join('\n')}${tail}` };
    };
    return build(fitCount(total, (k) => answerBytes(build(k)), BUDGET));
  },
});
