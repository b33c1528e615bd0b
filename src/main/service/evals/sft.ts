/**
 * An SFT dataset from reviews (issue 20 item 3): "corrections and good turns go into an SFT dataset in
 * one step", in the training API's dataset format (one `{"messages": [...], "tools": []}` line per
 * turn, chat-completions roles; interface.md "Training data"), written as a dataset version whose
 * `wandb-artifact:///` URL a training job takes as `training_data_url`.
 *
 * A line is a reviewed turn with the conversation before it as context: the chat's messages of every
 * turn up to it (service/training/datasets.ts toSftMessages). For a corrected turn the reviewer's
 * answer (a score's `correction`, the newest when several people corrected it) replaces the turn's
 * final answer, or is appended when the turn ended without one; a good turn (carrying a score the
 * `good` condition matches) goes in as it is. A correction on a conversation applies to its last turn.
 */
import type { ServiceContext } from '../context.js';
import type { OpOutput, OpParsedInput } from '../../../shared/contract/index.js';
import type { ScoreRecord } from '../../domain/scores.js';
import { parseScoreCond } from '../analytics/plan/expr.js';
import { traceChat } from '../chat/views.js';
import { conversationTurnViews, toSftMessages, writeProjectDataset, type ChatMsg } from '../training/datasets.js';
import { allScores } from './score-pages.js';

type In = OpParsedInput<'datasets.fromReviews'>;
type Out = OpOutput<'datasets.fromReviews'>;
interface Reviewed {
  trace_id: string | null;
  conversation_id: string | null;
  correction: string | null;
}

const keyOf = (r: { trace_id: string | null; conversation_id: string | null }) => `${r.conversation_id ?? ''}|${r.trace_id ?? ''}`;

export async function datasetFromReviews(input: In, ctx: ServiceContext): Promise<Out> {
  const p = input.project_id;
  const only = input.conversation_ids ? new Set(input.conversation_ids) : null;
  const inScope = (r: ScoreRecord) => (r.trace_id !== null || r.conversation_id !== null) && (!only || only.has(r.conversation_id ?? r.trace_id ?? ''));
  const picked = new Map<string, Reviewed>();
  // Newest first: the first correction seen for a turn is its newest.
  if (input.corrections) {
    // Only the corrected rows cross (of the chosen conversations' rows when named), a page at a time.
    for await (const r of allScores(ctx, p, null, null, input.conversation_ids ?? null, true)) {
      if (r.correction != null && inScope(r) && !picked.has(keyOf(r))) picked.set(keyOf(r), { trace_id: r.trace_id, conversation_id: r.conversation_id, correction: r.correction });
    }
  }
  if (input.good) {
    const c = parseScoreCond(input.good, ['body', 'good']);
    const matches = (r: ScoreRecord) =>
      (c.source == null || r.source === c.source) &&
      (c.min == null || (r.value != null && r.value >= c.min)) &&
      (c.max == null || (r.value != null && r.value <= c.max)) &&
      (c.labels == null || (r.label != null && c.labels.includes(r.label)));
    for await (const r of allScores(ctx, p, c.name, c.source ?? null, input.conversation_ids ?? null)) {
      if (matches(r) && inScope(r) && !picked.has(keyOf(r))) picked.set(keyOf(r), { trace_id: r.trace_id, conversation_id: r.conversation_id, correction: null });
    }
  }

  // One read of each conversation's chat, however many of its turns were reviewed.
  const byConversation = new Map<string, Reviewed[]>();
  for (const r of picked.values()) {
    const k = r.conversation_id ?? `trace:${r.trace_id}`;
    byConversation.set(k, [...(byConversation.get(k) ?? []), r]);
  }
  const lines: { order: [string, number]; text: string }[] = [];
  const skipped: Out['skipped'] = [];
  const used = new Set<string>();
  let corrected = 0;
  let good = 0;
  for (const [k, reviews] of byConversation) {
    const conv = reviews[0]!.conversation_id;
    const turns: { trace_id: string; messages: ChatMsg[] }[] = conv
      ? await conversationTurnViews(ctx, p, conv)
      : [await traceChat(ctx, { project_id: p, trace_id: reviews[0]!.trace_id!, include_feedback: false })];
    for (const r of reviews) {
      const i = r.trace_id === null ? turns.length - 1 : turns.findIndex((t) => t.trace_id === r.trace_id);
      const skip = (reason: string) => skipped.push({ trace_id: r.trace_id, conversation_id: r.conversation_id, reason });
      if (i < 0 || !turns[i]!.messages.length) {
        skip('the turn is no longer stored');
        continue;
      }
      const messages = toSftMessages(turns.slice(0, i + 1));
      const lastUser = messages.map((m) => m.role).lastIndexOf('user');
      if (lastUser < 0) {
        skip('no user message before the answer');
        continue;
      }
      const lastAnswer = messages.findLastIndex((m, j) => j > lastUser && m.role === 'assistant' && m.content);
      if (r.correction !== null) {
        if (lastAnswer >= 0) messages[lastAnswer] = { role: 'assistant', content: r.correction };
        else messages.push({ role: 'assistant', content: r.correction });
        corrected += 1;
      } else if (lastAnswer < 0) {
        skip('the turn has no answer');
        continue;
      } else good += 1;
      // The answer is the line's last message: what the model learns to say.
      const end = r.correction !== null && lastAnswer < 0 ? messages.length : lastAnswer + 1;
      lines.push({ order: [k, i], text: JSON.stringify({ messages: messages.slice(0, end), tools: [] }) });
      used.add(conv ?? r.trace_id!);
    }
  }
  lines.sort((a, b) => a.order[0].localeCompare(b.order[0]) || a.order[1] - b.order[1]);
  const out = await writeProjectDataset(ctx, p, input.name, 'reviews', lines.map((l) => l.text), [...used]);
  return { ...out, corrected, good, skipped };
}
