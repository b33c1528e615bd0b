/**
 * Rule scorers (issue 20 item 2): each rule reads a turn's facts and says pass (true) or fail (false)
 * with an explanation naming what it found. Pure and synchronous: a run scores thousands of turns a
 * second. A JSON-schema rule compiles its schema once (Ajv, the JSON Schema validator everyone uses).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { TurnFacts } from './turn-facts.js';

export type Rule =
  /** The answer matches (or, with expect 'no_match', does not match) a regular expression. */
  | { kind: 'answer_matches'; pattern: string; flags?: string; expect?: 'match' | 'no_match' }
  /** The answer is JSON valid against a JSON Schema. */
  | { kind: 'answer_json_schema'; schema: Record<string, unknown> }
  /** A tool was (called: true) or was not (called: false) called. */
  | { kind: 'tool_called'; tool: string; called: boolean }
  /** No tool (or the named tool) errored. */
  | { kind: 'tool_error'; tool?: string }
  /** The turn's latency (ms), tokens or cost (USD) is at most `max`. */
  | { kind: 'threshold'; measure: 'latency_ms' | 'tokens' | 'cost_usd'; max: number }
  /** No model output ended because it hit the length limit (finish_reason length / max_tokens). */
  | { kind: 'finish_length' }
  /** No tool was called with the same arguments `times` times in a row. */
  | { kind: 'repeated_tool_call'; times: number };

export const RULE_KINDS = ['answer_matches', 'answer_json_schema', 'tool_called', 'tool_error', 'threshold', 'finish_length', 'repeated_tool_call'] as const;

export interface RuleResult {
  pass: boolean;
  explanation: string;
}

const LENGTH_REASONS = new Set(['length', 'max_tokens', 'max_output_tokens', 'MAX_TOKENS']);
const ajv = new Ajv({ allErrors: false, strict: false });

/** A rule ready to run on many turns (its regular expression or schema compiled once). 422-worthy problems throw. */
export function compileRule(rule: Rule): (f: TurnFacts) => RuleResult {
  switch (rule.kind) {
    case 'answer_matches': {
      const re = new RegExp(rule.pattern, rule.flags ?? '');
      const want = (rule.expect ?? 'match') === 'match';
      return (f) => {
        const hit = f.answer != null && re.test(f.answer);
        return { pass: hit === want, explanation: f.answer == null ? 'the turn has no answer' : hit ? `the answer matches /${rule.pattern}/` : `the answer does not match /${rule.pattern}/` };
      };
    }
    case 'answer_json_schema': {
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(rule.schema);
      } catch (e) {
        throw new Error(`the JSON Schema does not compile: ${(e as Error).message}`, { cause: e });
      }
      return (f) => {
        if (f.answer == null) return { pass: false, explanation: 'the turn has no answer' };
        let value: unknown;
        try {
          value = JSON.parse(f.answer);
        } catch {
          return { pass: false, explanation: 'the answer is not JSON' };
        }
        if (validate(value)) return { pass: true, explanation: 'the answer is valid against the schema' };
        const e = validate.errors?.[0];
        return { pass: false, explanation: `the answer does not fit the schema: ${e ? `${e.instancePath || '/'} ${e.message}` : 'invalid'}` };
      };
    }
    case 'tool_called':
      return (f) => {
        const n = f.tool_calls.filter((t) => t.name === rule.tool).length;
        return { pass: (n > 0) === rule.called, explanation: n ? `${rule.tool} was called ${n} time${n === 1 ? '' : 's'}` : `${rule.tool} was not called` };
      };
    case 'tool_error':
      return (f) => {
        const failed = f.tool_calls.filter((t) => t.error != null && (!rule.tool || t.name === rule.tool));
        return failed.length
          ? { pass: false, explanation: failed.map((t) => `${t.name} failed: ${t.error}`).join('; ') }
          : { pass: true, explanation: rule.tool ? `${rule.tool} did not fail` : 'no tool failed' };
      };
    case 'threshold':
      return (f) => {
        const v = rule.measure === 'latency_ms' ? f.duration_ms : rule.measure === 'tokens' ? f.tokens : f.cost_usd;
        if (v == null) return { pass: true, explanation: `${rule.measure} unknown` };
        return { pass: v <= rule.max, explanation: `${rule.measure} ${v} ${v <= rule.max ? '≤' : '>'} ${rule.max}` };
      };
    case 'finish_length':
      return (f) => {
        const cut = f.finish_reasons.filter((r) => LENGTH_REASONS.has(r)).length;
        return cut ? { pass: false, explanation: `${cut} model output${cut === 1 ? ' was' : 's were'} cut at the length limit` } : { pass: true, explanation: 'no output was cut at the length limit' };
      };
    case 'repeated_tool_call':
      return (f) => {
        const run = longestRepeat(f);
        return run.times >= rule.times
          ? { pass: false, explanation: `${run.name} was called ${run.times} times in a row with the same arguments` }
          : { pass: true, explanation: `no tool was called ${rule.times} times in a row with the same arguments` };
      };
  }
}

/** The longest run of consecutive identical tool calls (same name and arguments). */
export function longestRepeat(f: Pick<TurnFacts, 'tool_calls'>): { name: string; times: number } {
  let best = { name: '', times: 0 };
  let cur = { key: '', name: '', times: 0 };
  for (const t of f.tool_calls) {
    const key = `${t.name}\u0000${t.arguments ?? ''}`;
    cur = key === cur.key ? { ...cur, times: cur.times + 1 } : { key, name: t.name, times: 1 };
    if (cur.times > best.times) best = { name: cur.name, times: cur.times };
  }
  return best;
}
