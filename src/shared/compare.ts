/**
 * Trace compare, the pure part (unit-tested; the Compare page and the MCP `compare` tool): two turns' messages become steps, the steps are
 * aligned, and each aligned pair says what changed.
 *
 * Alignment is a longest-common-subsequence diff (jsdiff's diffArrays) over step keys — the kind of
 * step and who acts in it (user; an assistant and its agent; a tool and its name; an agent card; a
 * handoff and its two agents) — so "the same step" lines up even when its text changed, and steps
 * only one run took show alone on their side. Where one run removed steps and the other added the
 * same number at that place, they are paired as changed (a different tool called at the same point).
 * Text of a pair is then diffed word by word.
 */
import { diffArrays, diffWordsWithSpace, type Change } from 'diff';
import type { Turn } from './contract/chat.js';
import { parseToolRequests } from './tool-calls.js';

type ChatMessage = Turn['messages'][number];

export interface Step {
  index: number;
  message: ChatMessage;
  key: string;
  /** What is compared as text: the message text, or a tool call's arguments and result. */
  text: string;
  label: string;
  tokensIn: number | null;
  tokensOut: number | null;
  cost: number | null;
  latencyMs: number | null;
  failed: boolean;
}

export type PairKind = 'same' | 'changed' | 'only-a' | 'only-b';
export interface Pair {
  kind: PairKind;
  a: Step | null;
  b: Step | null;
  /** Word diff of a.text → b.text (pairs only). */
  diff: Change[] | null;
}

export function toSteps(messages: readonly ChatMessage[]): Step[] {
  const out: Step[] = [];
  messages.forEach((m, index) => {
    const base = { index, message: m, tokensIn: null, tokensOut: null, cost: null, latencyMs: null, failed: m.status_code === 'ERROR' };
    switch (m.type) {
      case 'user_message':
        out.push({ ...base, key: 'user', label: 'User', text: m.user_message?.text ?? '' });
        break;
      case 'assistant_message': {
        const a = m.assistant_message!;
        // A model call that only asked for tools is compared by the calls it asked for.
        const calls = parseToolRequests(a.text);
        out.push({
          ...base,
          key: `assistant:${m.agent_name ?? ''}`,
          label: m.agent_name ?? 'assistant',
          text: calls ? calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join('\n') : a.text,
          tokensIn: a.input_tokens, tokensOut: a.output_tokens, cost: a.total_cost_usd, latencyMs: a.duration_ms,
          failed: base.failed || a.status === 'ERROR',
        });
        break;
      }
      case 'tool_call': {
        const t = m.tool_call!;
        out.push({
          ...base,
          key: `tool:${t.tool_name ?? ''}`,
          label: t.tool_name ?? 'tool',
          text: `${t.tool_arguments ?? ''}\n→ ${t.tool_result ?? ''}`,
          latencyMs: t.duration_ms,
          failed: base.failed || t.status === 'ERROR',
        });
        break;
      }
      case 'agent_start':
        out.push({ ...base, key: `agent:${m.agent_name ?? ''}`, label: m.agent_name ?? 'agent', text: [m.agent_start?.model, m.agent_start?.system_instructions].filter(Boolean).join('\n') });
        break;
      case 'agent_handoff': {
        const h = m.agent_handoff;
        out.push({ ...base, key: `handoff:${h?.from_agent ?? ''}>${h?.to_agent ?? ''}`, label: `${h?.from_agent ?? 'agent'} → ${h?.to_agent ?? 'agent'}`, text: h?.text ?? '' });
        break;
      }
      case 'context_compacted':
        out.push({ ...base, key: 'compaction', label: 'Context compacted', text: m.context_compacted?.compaction_summary ?? '' });
        break;
    }
  });
  return out;
}

const kindOf = (key: string) => key.split(':')[0];

function pair(a: Step, b: Step): Pair {
  const same = a.text === b.text && a.key === b.key && a.failed === b.failed;
  return { kind: same ? 'same' : 'changed', a, b, diff: diffWordsWithSpace(a.text, b.text) };
}

/** Aligns two runs' steps (see the module comment). */
export function alignSteps(a: Step[], b: Step[]): Pair[] {
  const changes = diffArrays(a.map((s) => s.key), b.map((s) => s.key));
  const out: Pair[] = [];
  let ia = 0;
  let ib = 0;
  for (let c = 0; c < changes.length; c++) {
    const ch = changes[c]!;
    const n = ch.count ?? ch.value.length;
    if (!ch.added && !ch.removed) {
      for (let k = 0; k < n; k++) out.push(pair(a[ia++]!, b[ib++]!));
      continue;
    }
    if (ch.removed) {
      const next = changes[c + 1];
      const removed = a.slice(ia, ia + n);
      ia += n;
      const added = next?.added ? b.slice(ib, ib + (next.count ?? next.value.length)) : [];
      if (next?.added) { ib += added.length; c++; }
      // Same position, same kind of step (a different tool, another agent): a changed pair.
      let k = 0;
      for (; k < Math.min(removed.length, added.length) && kindOf(removed[k]!.key) === kindOf(added[k]!.key); k++) out.push(pair(removed[k]!, added[k]!));
      for (const s of removed.slice(k)) out.push({ kind: 'only-a', a: s, b: null, diff: null });
      for (const s of added.slice(k)) out.push({ kind: 'only-b', a: null, b: s, diff: null });
      continue;
    }
    for (let k = 0; k < n; k++) out.push({ kind: 'only-b', a: null, b: b[ib++]!, diff: null });
  }
  return out;
}

export interface Totals {
  steps: number;
  tokensIn: number;
  tokensOut: number;
  cost: number | null;
  failed: number;
}

export function totals(steps: Step[]): Totals {
  let cost: number | null = null;
  const t = { steps: steps.length, tokensIn: 0, tokensOut: 0, failed: 0 };
  for (const s of steps) {
    t.tokensIn += s.tokensIn ?? 0;
    t.tokensOut += s.tokensOut ?? 0;
    if (s.cost !== null) cost = (cost ?? 0) + s.cost;
    if (s.failed) t.failed++;
  }
  return { ...t, cost };
}
