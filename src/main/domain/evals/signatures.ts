/**
 * Failure signatures (issue 20 item 4): deterministic strings that name what went wrong in a turn,
 * with numbers, ids and other per-occurrence detail masked, so the same failure in a thousand turns
 * has one signature and two different failures never share one. Turns are grouped into clusters by
 * signature (service/evals/clusters.ts).
 *
 * One turn gives at most one signature of each kind, and a tool's failure is not counted again as the
 * failure of the agent span around it.
 */
import type { TurnFacts } from './turn-facts.js';
import { longestRepeat } from './rules.js';

export type SignatureKind = 'tool_error' | 'error' | 'repeated_tool_call' | 'length_cutoff' | 'rephrased' | 'negative_feedback';

export interface Signature {
  kind: SignatureKind;
  /** The signature itself (the cluster's key): readable, at most 200 characters. */
  key: string;
  /** One occurrence's unmasked detail (an example message). */
  example: string | null;
}

const MAX_KEY = 200;
const LENGTH_REASONS = new Set(['length', 'max_tokens', 'max_output_tokens', 'MAX_TOKENS']);
export const REPEAT_TIMES = 3;

/** A message's shape: ids, hex, numbers, quoted values, paths and URLs masked; whitespace folded; cut. */
export function maskMessage(text: string): string {
  return text
    .split('\n')[0]!
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>')
    .replace(/\b[A-Za-z]+[-_]\d[\w-]*\b/g, '<id>')
    .replace(/(['"`])(?:(?!\1).){1,120}\1/g, '<value>')
    .replace(/-?\d+(?:[.,]\d+)*/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
}

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** The user asked the same thing again: one question holds the other, or their words overlap by 60 % or more. */
export function isRephrase(previous: string | null, current: string | null): boolean {
  if (!previous || !current) return false;
  const a = words(previous);
  const b = words(current);
  if (a.size < 3 || b.size < 3) return false;
  let both = 0;
  for (const w of a) if (b.has(w)) both += 1;
  return both / (a.size + b.size - both) >= 0.6;
}

const cut = (s: string) => (s.length > MAX_KEY ? `${s.slice(0, MAX_KEY - 1)}…` : s);

/** The failure signatures of one turn, given the previous turn's question (same conversation) and whether feedback on it was negative. */
export function signaturesOf(f: TurnFacts, previousQuestion: string | null, negativeFeedback: boolean): Signature[] {
  const out: Signature[] = [];
  const failedTool = f.tool_calls.find((t) => t.error != null);
  if (failedTool) {
    out.push({ kind: 'tool_error', key: cut(`tool error · ${failedTool.name}: ${maskMessage(failedTool.error!)}`), example: failedTool.error });
  } else {
    // The innermost failed span (the latest to start): the agent spans around it often fail with it.
    const e = f.errors.filter((x) => !x.tool_name).at(-1);
    if (e) {
      const what = e.error_type ?? e.span_name.replace(/\s.*$/, '');
      out.push({ kind: 'error', key: cut(`error · ${what}: ${maskMessage(e.message ?? '')}`), example: e.message });
    }
  }
  const repeat = longestRepeat(f);
  if (repeat.times >= REPEAT_TIMES) out.push({ kind: 'repeated_tool_call', key: cut(`repeated tool call · ${repeat.name}`), example: `${repeat.name} called ${repeat.times} times with the same arguments` });
  if (f.finish_reasons.some((r) => LENGTH_REASONS.has(r))) out.push({ kind: 'length_cutoff', key: cut(`length cut-off · ${f.models[0] ?? 'model'}`), example: f.answer?.slice(-200) ?? null });
  if (isRephrase(previousQuestion, f.question)) out.push({ kind: 'rephrased', key: 'user repeated or rephrased the question', example: f.question });
  if (negativeFeedback) out.push({ kind: 'negative_feedback', key: 'negative feedback', example: null });
  return out;
}
