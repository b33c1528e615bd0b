/**
 * Tool calls of the built-in models: the chat template writes each call as a line
 * `{"name":"<function>","arguments":{...}}` after the message text (training/tokenizer.ts), and
 * generation with tool_choice "required" or a named function is constrained to exactly that form
 * (training/json-constraint.ts). This turns a generated text back into chat-completions
 * `tool_calls` (arguments as a JSON string, as OpenAI returns them).
 */
import { randomBytes } from 'node:crypto';
import { badRequest } from '../../../shared/errors.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ToolConstraint } from '../../training/engine.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

type Input = OpParsedInput<'training.chatCompletions'>;

/** How a request uses tools: none, free choice (parse what comes), or constrained to names. */
export type ToolMode = { kind: 'none' } | { kind: 'auto'; names: string[] } | { kind: 'constrained'; constraint: ToolConstraint };

export function toolMode(input: Input): ToolMode {
  const names = (input.tools ?? []).map((t) => t.function.name);
  const choice = input.tool_choice ?? (names.length ? 'auto' : 'none');
  if (choice === 'none') return { kind: 'none' };
  if (names.length === 0) {
    const e = badRequest('tool_choice needs tools: declare the functions in `tools`');
    e.param = 'tool_choice';
    throw e;
  }
  if (choice === 'auto') return { kind: 'auto', names };
  // The functions' JSON Schemas: a forced call's arguments are generated to validate against them.
  const parameters = Object.fromEntries((input.tools ?? []).map((t) => [t.function.name, (t.function as { parameters?: unknown }).parameters ?? {}]));
  if (choice === 'required') return { kind: 'constrained', constraint: { names, parameters } };
  const name = choice.function.name;
  if (!names.includes(name)) {
    const e = badRequest(`tool_choice names function "${name}", which is not in tools (${names.join(', ')})`);
    e.param = 'tool_choice';
    throw e;
  }
  return { kind: 'constrained', constraint: { names: [name], parameters } };
}

const callId = () => `call_${randomBytes(12).toString('base64url')}`;

/**
 * Splits a generated text into content and tool calls: trailing lines that are canonical calls of
 * known functions become tool_calls; what precedes them stays content (null when empty).
 */
export function parseToolCalls(text: string, names: string[]): { content: string | null; tool_calls: ToolCall[] } {
  const lines = text.split('\n');
  const calls: ToolCall[] = [];
  let cut = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    const c = asCall(lines[i]!, names);
    if (!c) break;
    calls.unshift(c);
    cut = i;
  }
  if (calls.length === 0) return { content: text, tool_calls: [] };
  const content = lines.slice(0, cut).join('\n');
  return { content: content === '' ? null : content, tool_calls: calls };
}

function asCall(line: string, names: string[]): ToolCall | null {
  if (!line.startsWith('{')) return null;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  const o = v as { name?: unknown; arguments?: unknown };
  if (!o || typeof o !== 'object' || typeof o.name !== 'string' || !names.includes(o.name) || !('arguments' in o)) return null;
  const args = typeof o.arguments === 'string' ? o.arguments : JSON.stringify(o.arguments);
  return { id: callId(), type: 'function', function: { name: o.name, arguments: args } };
}
