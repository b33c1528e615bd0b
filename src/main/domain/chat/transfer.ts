/**
 * Agent-to-agent interactions as the GenAI semantic conventions record them
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/non-normative/examples-agent-interactions.md):
 * - a tool that transfers to another agent (refinement `gen_ai.execute_tool.transfer.internal` of the
 *   execute_tool span): `gen_ai.agent.*` is the source agent running the tool, `gen_ai.transfer.target.name`
 *   the target, `gen_ai.transfer.mode` whether control returns to the source (`return_to_caller`) or passes
 *   to the target (`pass_control`);
 * - an agent invoked through an API or protocol (the `invoke_agent` CLIENT span): `gen_ai.agent.*` is the
 *   invoked agent, `gen_ai.caller.name` / `gen_ai.caller.type` (agent | workflow) the immediate logical caller,
 *   which may differ from the enclosing span (a local proxy such as ADK's RemoteA2aAgent).
 * The attributes are no columns of their own: they stay in the span's custom string map, and the chat reads
 * only these keys (the stores select them alone, see store/sqlite/chat.ts and store/clickhouse/reads/chat.ts).
 */
import type { ChatSpan } from './span.js';

export const TRANSFER_TARGET = 'gen_ai.transfer.target.name';
export const TRANSFER_MODE = 'gen_ai.transfer.mode';
export const CALLER_NAME = 'gen_ai.caller.name';
export const CALLER_TYPE = 'gen_ai.caller.type';

/** The custom string keys the chat reads (and the stores select). */
export const HANDOFF_KEYS = [TRANSFER_TARGET, TRANSFER_MODE, 'gen_ai.transfer.target.type', CALLER_NAME, CALLER_TYPE] as const;

/** Prefixes that mark a span holding any of HANDOFF_KEYS (a cheap test before a stored map is parsed). */
export const HANDOFF_PREFIXES = ['gen_ai.transfer.', 'gen_ai.caller.'] as const;

const value = (s: Pick<ChatSpan, 'custom_attrs_string'>, key: string): string | null => {
  const v = s.custom_attrs_string?.[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
};

export interface Transfer {
  /** The agent (or other entity) the conversation or the task goes to. */
  target: string;
  /** `pass_control`: the target takes the conversation over; anything else: it works for the source and returns. */
  passesControl: boolean;
}

/** The transfer a tool span records, or null. */
export function transferOf(s: Pick<ChatSpan, 'custom_attrs_string'>): Transfer | null {
  const target = value(s, TRANSFER_TARGET);
  if (!target) return null;
  return { target, passesControl: value(s, TRANSFER_MODE)?.toLowerCase() === 'pass_control' };
}

/** The logical caller an agent invocation records (`gen_ai.caller.name`), or null. */
export const callerOf = (s: Pick<ChatSpan, 'custom_attrs_string'>): string | null => value(s, CALLER_NAME);

/** The caller is a workflow (`gen_ai.caller.type`), not an agent. */
export const calledByWorkflow = (s: Pick<ChatSpan, 'custom_attrs_string'>): boolean => value(s, CALLER_TYPE)?.toLowerCase() === 'workflow';

/** Only the handoff keys of a stored custom string map (JSON text), or undefined when it holds none. */
export function handoffAttrs(map: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> | undefined {
  if (!map) return undefined;
  let out: Record<string, string> | undefined;
  for (const k of HANDOFF_KEYS) {
    const v = map[k];
    if (typeof v === 'string') (out ??= {})[k] = v;
  }
  return out;
}
