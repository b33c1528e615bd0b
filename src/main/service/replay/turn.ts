/**
 * Replaying one turn: its first model call's request sent to the target, the new model's tool calls
 * answered from the recording (matching.ts) until it answers without a tool call, asks for one the
 * recording cannot answer (a divergence: stop, or ask the user's command), or uses up the calls a
 * turn may make.
 */
import { spawn } from 'node:child_process';
import type { z } from 'zod';
import type { Divergence, OnDivergence, ReplayOverrides } from '../../../shared/contract/replays.js';
import type { ServiceContext } from '../context.js';
import type { Recording } from './recording.js';
import { ToolBook } from './matching.js';
import { toOpenAiMessages, toOpenAiTools, type OpenAiMessage, type OpenAiToolCall } from './openai-messages.js';
import { callModel, type CallAnswer, type CallRequest, type ResolvedTarget } from './target.js';

export interface CallLog {
  request: CallRequest;
  answer: CallAnswer;
  startNs: bigint;
  endNs: bigint;
}

export interface ToolLog {
  call: OpenAiToolCall;
  result: string | null;
  how: 'exact' | 'normalized' | 'command' | 'diverged';
  startNs: bigint;
  endNs: bigint;
}

export interface TurnResult {
  calls: CallLog[];
  tools: ToolLog[];
  divergence: z.output<typeof Divergence> | null;
  /** The last answer's text (empty when the turn stopped at a divergence). */
  answer: string;
  /** Set when the turn ended without an answer for another reason than a divergence. */
  error: string | null;
}

export interface TurnOptions {
  target: ResolvedTarget;
  overrides: z.output<typeof ReplayOverrides>;
  onDivergence: z.output<typeof OnDivergence>;
  maxCalls: number;
  signal: AbortSignal;
  /** Waits for the rate and checks the budget before each call; throws to stop the replay. */
  beforeCall(request: CallRequest): Promise<void>;
  /** Counts what a call used. */
  afterCall(answer: CallAnswer): void;
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The first request: recorded system, messages, tools and settings, with the user's overrides. */
export function firstRequest(rec: Recording, o: z.output<typeof ReplayOverrides>): CallRequest {
  const system = o.system_prompt !== undefined ? [o.system_prompt] : rec.system;
  const s = rec.settings;
  return {
    messages: toOpenAiMessages(system, rec.messages),
    tools: o.tools ?? toOpenAiTools(rec.tool_definitions),
    temperature: o.temperature ?? s.temperature,
    top_p: s.top_p,
    max_tokens: o.max_tokens ?? s.max_tokens,
    seed: s.seed,
    stop: s.stop,
  };
}

/** Runs the user's command with the tool call on stdin; its stdout (trimmed) is the result. */
function runCommand(cmd: { command: string[]; timeout_ms: number }, call: OpenAiToolCall, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command[0]!, cmd.command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], timeout: cmd.timeout_ms, signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new Error(`divergence command ${cmd.command[0]}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else reject(new Error(`divergence command ${cmd.command[0]} exited ${code}: ${Buffer.concat(err).toString('utf8').slice(0, 300)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ name: call.function.name, arguments: call.function.arguments }));
  });
}

export async function replayTurn(_ctx: ServiceContext, rec: Recording, o: TurnOptions): Promise<TurnResult> {
  const book = new ToolBook(rec.tool_calls, o.overrides.normalizers);
  const first = firstRequest(rec, o.overrides);
  const messages: OpenAiMessage[] = [...first.messages];
  const calls: CallLog[] = [];
  const tools: ToolLog[] = [];
  let divergence: TurnResult['divergence'] = null;
  for (let i = 0; i < o.maxCalls; i++) {
    const request: CallRequest = { ...first, messages: [...messages] };
    await o.beforeCall(request);
    const startNs = nowNs();
    const answer = await callModel(_ctx, o.target, request, o.signal);
    o.afterCall(answer);
    calls.push({ request, answer, startNs, endNs: nowNs() });
    messages.push({ role: 'assistant', content: answer.content, ...(answer.tool_calls.length ? { tool_calls: answer.tool_calls } : {}) });
    if (!answer.tool_calls.length) return { calls, tools, divergence, answer: answer.content ?? '', error: null };
    for (const call of answer.tool_calls) {
      const t0 = nowNs();
      const m = book.find(call.function.name, call.function.arguments);
      if (m.kind === 'exact' || m.kind === 'normalized') {
        tools.push({ call, result: m.result, how: m.kind, startNs: t0, endNs: nowNs() });
        messages.push({ role: 'tool', tool_call_id: call.id, content: m.result });
        continue;
      }
      const handled = o.onDivergence === 'stop' ? 'stopped' : 'command';
      divergence ??= { kind: m.kind, tool: call.function.name, arguments: call.function.arguments, call_index: i, handled };
      if (o.onDivergence === 'stop') {
        tools.push({ call, result: null, how: 'diverged', startNs: t0, endNs: nowNs() });
        return { calls, tools, divergence, answer: '', error: null };
      }
      const result = await runCommand(o.onDivergence, call, o.signal);
      tools.push({ call, result, how: 'command', startNs: t0, endNs: nowNs() });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
  return { calls, tools, divergence, answer: '', error: `stopped after ${o.maxCalls} model calls without an answer (budget.max_calls_per_turn)` };
}
