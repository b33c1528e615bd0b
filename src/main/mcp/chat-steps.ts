/**
 * A chat message as an agent reads it: who spoke (the user, an agent by name, a tool), what was said
 * or called with which arguments and result, and the error with its type and message. The chat
 * messages come from the chat views (`chat.conversation`, `chat.tracePage`); long texts are cut
 * with a marker pointing at get_span, which reads a span's values whole.
 */
import { z } from 'zod';
import type { Turn } from '../../shared/contract/chat.js';
import { cutOrNull } from './budget.js';
import { fmtCost, fmtMs, fmtTokens, quote } from './text.js';

type ChatMessage = Turn['messages'][number];

export const StepSchema = z.object({
  step: z.number().int().describe('position of the step in its turn (0-based)'),
  speaker: z.string().describe('"user", the agent\'s name, or "tool"'),
  kind: z.enum(['user', 'assistant', 'tool_call', 'handoff', 'agent_start', 'compaction']),
  span_id: z.string().nullable(),
  text: z.string().nullable(),
  tool: z.string().nullable(),
  arguments: z.string().nullable(),
  result: z.string().nullable(),
  model: z.string().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
  duration_ms: z.number().nullable(),
  status: z.enum(['UNSET', 'OK', 'ERROR']).nullable(),
  error: z.object({ type: z.string().nullable(), message: z.string().nullable() }).nullable(),
});
export type Step = z.infer<typeof StepSchema>;

/** Per-value caps: a step stays well under a kilobyte or two, so a page always holds some. */
const CAP = { text: 1200, arguments: 500, result: 800, error: 400 };

const more = (traceId: string, spanId: string | null) => (spanId ? `get_span trace_id="${traceId}" span_id="${spanId}" reads it whole` : undefined);

export function toStep(m: ChatMessage, index: number, traceId: string): Step {
  const hint = more(traceId, m.span_id);
  const base: Step = {
    step: index, speaker: m.agent_name ?? 'assistant', kind: 'assistant', span_id: m.span_id, text: null, tool: null, arguments: null, result: null,
    model: null, input_tokens: null, output_tokens: null, cost_usd: null, duration_ms: null, status: m.status_code, error: null,
  };
  const errorOf = (p: { error_type: string | null; error_message: string | null; status: string | null }) =>
    p.status === 'ERROR' || m.status_code === 'ERROR' || p.error_type ? { type: p.error_type, message: cutOrNull(p.error_message, CAP.error, hint) } : null;
  switch (m.type) {
    case 'user_message':
      return { ...base, speaker: 'user', kind: 'user', text: cutOrNull(m.user_message?.text, CAP.text, hint) };
    case 'assistant_message': {
      const a = m.assistant_message!;
      return {
        ...base, text: cutOrNull(a.text, CAP.text, hint), model: a.model, input_tokens: a.input_tokens, output_tokens: a.output_tokens,
        cost_usd: a.total_cost_usd, duration_ms: a.duration_ms, status: a.status ?? m.status_code, error: errorOf(a),
      };
    }
    case 'tool_call': {
      const t = m.tool_call!;
      return {
        ...base, speaker: 'tool', kind: 'tool_call', tool: t.tool_name, arguments: cutOrNull(t.tool_arguments, CAP.arguments, hint),
        result: cutOrNull(t.tool_result, CAP.result, hint), duration_ms: t.duration_ms, status: t.status ?? m.status_code, error: errorOf(t),
      };
    }
    case 'agent_handoff': {
      const h = m.agent_handoff;
      return { ...base, speaker: h?.from_agent ?? base.speaker, kind: 'handoff', tool: h?.to_agent ?? null, text: cutOrNull(h?.text, CAP.text, hint) };
    }
    case 'agent_start': {
      const s = m.agent_start;
      return { ...base, kind: 'agent_start', model: s?.model ?? null, text: cutOrNull(s?.system_instructions, 300, hint) };
    }
    case 'context_compacted':
      return { ...base, kind: 'compaction', text: cutOrNull(m.context_compacted?.compaction_summary, CAP.text, hint) };
  }
}

export function stepText(s: Step): string {
  const err = s.error ? ` ERROR${s.error.type ? ` ${s.error.type}` : ''}${s.error.message ? `: ${s.error.message}` : ''}` : '';
  const span = s.span_id ? ` (span ${s.span_id})` : '';
  switch (s.kind) {
    case 'user':
      return `  ${s.step}. user: ${s.text ?? ''}`;
    case 'assistant': {
      const usage = s.input_tokens != null || s.output_tokens != null ? ` · ${fmtTokens(s.input_tokens)}→${fmtTokens(s.output_tokens)} tokens` : '';
      const facts = [s.model, usage && usage.slice(3), s.cost_usd != null ? fmtCost(s.cost_usd) : null, s.duration_ms != null ? fmtMs(s.duration_ms) : null].filter(Boolean).join(' · ');
      return `  ${s.step}. ${s.speaker}${facts ? ` [${facts}]` : ''}${err}${s.text ? `: ${s.text}` : ' (no text: it called the tools that follow)'}${span}`;
    }
    case 'tool_call':
      return `  ${s.step}. tool ${s.tool ?? '?'}(${s.arguments ?? ''})${s.duration_ms != null ? ` [${fmtMs(s.duration_ms)}]` : ''}${err}${s.result != null ? ` → ${s.result}` : ''}${span}`;
    case 'handoff':
      return `  ${s.step}. ${s.speaker} hands off to ${s.tool ?? '?'}${s.text ? `: ${quote(s.text, 300)}` : ''}${span}`;
    case 'agent_start':
      return `  ${s.step}. agent ${s.speaker} starts${s.model ? ` (${s.model})` : ''}${err}${span}`;
    case 'compaction':
      return `  ${s.step}. context compacted: ${s.text ?? ''}`;
  }
}
