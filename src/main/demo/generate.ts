/**
 * Turns the demo scripts into OTLP/JSON export requests (one per turn = one trace), exactly as an
 * instrumented agent app would send them with the current OTel GenAI conventions, plus the feedback
 * records a user would have left. Deterministic for a given seed and `now`.
 */
import { AGENTS, TOOL_DESCRIPTIONS, type DemoAgent } from './agents.js';
import { STORY_CONVERSATIONS, fillerConversations } from './conversations.js';
import { exportRequest, type AttrValue, type DemoSpan } from './otlp.js';
import { Rng } from './rng.js';
import type { ConversationScript, Step } from './script.js';

export interface DemoFeedback {
  target_kind: 'conversation' | 'trace';
  target_id: string;
  feedback_type: string;
  payload: Record<string, unknown>;
  creator: string;
  created_at: string;
}

export interface DemoData {
  requests: Record<string, unknown>[];
  feedback: DemoFeedback[];
  conversations: number;
  traces: number;
  spans: number;
}

export interface DemoOptions {
  seed?: number;
  /** Epoch ms the newest conversation ends near; default Date.now(). */
  now?: number;
  /** Seeded short conversations added to the hand-written ones. */
  fillers?: number;
}

type Part = Record<string, unknown>;
type Message = { role: string; parts: Part[]; finish_reason?: string };

const MS = 1_000_000n;
const text = (content: string): Part => ({ type: 'text', content });
const tokens = (chars: number) => Math.max(1, Math.round(chars / 4));

/**
 * Custom attribute values are derived from ids the generator already drew (a span id, a user id)
 * instead of new draws from the seeded generator, so adding them left every id and time of the demo
 * unchanged.
 */
const bucket = (hexId: string, n: number) => parseInt(hexId.slice(0, 8), 16) % n;
/** Mostly first-try calls, some retried once, a few twice. */
const RETRIES = [0, 0, 0, 0, 0, 0, 1, 1, 2, 0] as const;
const TIERS = ['free', 'pro', 'pro', 'enterprise'] as const;
/** FNV-1a of the user id: one user is on one plan across their conversations. */
function customerTier(userId: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193) >>> 0;
  return TIERS[h % TIERS.length]!;
}

export function generateDemo(opts: DemoOptions = {}): DemoData {
  const rng = new Rng(opts.seed ?? 1187);
  const now = BigInt(Math.floor(opts.now ?? Date.now())) * MS;
  const scripts = [...STORY_CONVERSATIONS, ...fillerConversations(rng, opts.fillers ?? 9)];
  const out: DemoData = { requests: [], feedback: [], conversations: scripts.length, traces: 0, spans: 0 };
  scripts.forEach((conv, i) => {
    // Newest conversation first in time order from the end: conversation i started i × ~3 h ago.
    const start = now - BigInt(i + 1) * 3n * 3600n * 1000n * MS - BigInt(rng.int(0, 3_600_000)) * MS;
    new ConversationWriter(conv, rng, out).write(start);
  });
  return out;
}

class ConversationWriter {
  private history: Message[] = [];
  private spans: DemoSpan[] = [];
  constructor(
    private readonly conv: ConversationScript,
    private readonly rng: Rng,
    private readonly out: DemoData,
  ) {}

  write(start: bigint): void {
    let t = start;
    for (const turn of this.conv.turns) {
      this.spans = [];
      const traceId = this.rng.hex(16);
      const agent = AGENTS[this.conv.agent];
      if (turn.compaction) this.history = [{ role: 'system', parts: [text(`Conversation summary: ${turn.compaction.summary}`)] }];
      const user: Message = { role: 'user', parts: [text(turn.user)] };
      const rootId = this.rng.hex(8);
      const turnMessages: Message[] = [user];
      const run = this.runSteps(traceId, rootId, agent, turn.steps, turnMessages, t + 5n * MS);
      const failed = run.error !== null;
      this.spans.push({
        traceId,
        spanId: rootId,
        name: `invoke_agent ${agent.name}`,
        kind: 1,
        startNs: t,
        endNs: run.end + 3n * MS,
        attributes: {
          ...this.agentAttrs(agent),
          'gen_ai.conversation.id': this.conv.id,
          'gen_ai.input.messages': JSON.stringify([user]),
          'gen_ai.output.messages': turn.answer ? JSON.stringify([{ role: 'assistant', parts: [text(turn.answer)], finish_reason: 'stop' }]) : undefined,
          // Agent frameworks repeat their children's usage on the agent span; Loupe's totals must not double count it.
          'gen_ai.usage.input_tokens': run.input,
          'gen_ai.usage.output_tokens': run.output,
          'svc.user_id': this.conv.userId,
          'app.customer_tier': customerTier(this.conv.userId),
          'error.type': run.error ?? undefined,
          ...(turn.compaction
            ? { 'svc.compaction.summary': turn.compaction.summary, 'svc.compaction.items_before': turn.compaction.itemsBefore, 'svc.compaction.items_after': turn.compaction.itemsAfter }
            : {}),
        },
        status: failed ? { code: 2, message: run.error! } : { code: 0 },
      });
      this.history.push(user);
      if (turn.answer) this.history.push({ role: 'assistant', parts: [text(turn.answer)] });
      this.out.requests.push(exportRequest('northwind-support', { 'deployment.environment': 'demo', 'service.version': '3.4.1' }, this.spans));
      this.out.traces += 1;
      this.out.spans += this.spans.length;
      const created = new Date(Number((run.end + 20_000n * MS) / MS)).toISOString();
      if (turn.feedback?.thumbs) this.feedback('trace', traceId, 'thumbs', { value: turn.feedback.thumbs }, created);
      if (turn.feedback?.note) this.feedback('trace', traceId, 'note', { note: turn.feedback.note }, created);
      t = run.end + BigInt(this.rng.int(40, 360)) * 1000n * MS;
    }
    const created = new Date(Number(t / MS)).toISOString();
    if (this.conv.feedback?.rating !== undefined) this.feedback('conversation', this.conv.id, 'rating', { value: this.conv.feedback.rating, max: 5 }, created);
    if (this.conv.feedback?.note) this.feedback('conversation', this.conv.id, 'note', { note: this.conv.feedback.note }, created);
  }

  private feedback(kind: DemoFeedback['target_kind'], id: string, type: string, payload: Record<string, unknown>, created_at: string) {
    this.out.feedback.push({ target_kind: kind, target_id: id, feedback_type: type, payload, creator: this.conv.userId, created_at });
  }

  private agentAttrs(agent: DemoAgent): Record<string, AttrValue> {
    return {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent.name,
      'gen_ai.agent.id': agent.id,
      'gen_ai.agent.description': agent.description,
      'gen_ai.provider.name': agent.provider,
      'gen_ai.request.model': agent.model,
    };
  }

  /** Emits the spans of an agent's steps under `parentId`; returns usage sums, end time and the error type. */
  private runSteps(traceId: string, parentId: string, agent: DemoAgent, steps: Step[], messages: Message[], start: bigint) {
    let t = start;
    let input = 0;
    let output = 0;
    let error: string | null = null;
    for (const step of steps) {
      if (step.kind === 'delegate') {
        const sub = AGENTS[step.agent];
        const subId = this.rng.hex(8);
        const task: Message = { role: 'user', parts: [text(step.task)] };
        const r = this.runSteps(traceId, subId, sub, step.steps, [task], t + 2n * MS);
        this.spans.push({
          traceId, spanId: subId, parentSpanId: parentId, name: `invoke_agent ${sub.name}`, kind: 1, startNs: t, endNs: r.end + 2n * MS,
          attributes: {
            ...this.agentAttrs(sub), 'gen_ai.conversation.id': this.conv.id,
            'gen_ai.input.messages': JSON.stringify([task]),
            'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [text(step.answer)], finish_reason: 'stop' }]),
          },
          status: r.error ? { code: 2, message: r.error } : { code: 0 },
        });
        messages.push({ role: 'assistant', parts: [text(`[${sub.name}] ${step.answer}`)] });
        input += r.input;
        output += r.output;
        t = r.end + 5n * MS;
        continue;
      }
      const chat = this.chatSpan(traceId, parentId, agent, step, messages, t);
      const callIds = chat.callIds;
      input += chat.input;
      output += chat.output;
      t = chat.end;
      if (step.error) {
        error = step.error.type;
        break;
      }
      for (const [k, call] of (step.tools ?? []).entries()) {
        const dur = BigInt(this.rng.int(40, 900)) * MS;
        const id = callIds[k]!;
        const toolSpanId = this.rng.hex(8);
        this.spans.push({
          traceId, spanId: toolSpanId, parentSpanId: parentId, name: `execute_tool ${call.name}`, kind: 1, startNs: t + MS, endNs: t + MS + dur,
          attributes: {
            // A failed call never comes from the result cache.
            'app.cache_hit': call.error ? false : bucket(toolSpanId, 3) !== 0,
            'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.type': 'function',
            'gen_ai.tool.description': TOOL_DESCRIPTIONS[call.name]?.description, 'gen_ai.tool.call.id': id,
            'gen_ai.tool.call.arguments': JSON.stringify(call.args),
            'gen_ai.tool.call.result': call.error ? undefined : JSON.stringify(call.result),
            'error.type': call.error?.type,
          },
          status: call.error ? { code: 2, message: call.error.message } : { code: 0 },
        });
        messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id, response: call.error ? { error: call.error.message } : call.result }] });
        t += dur + 2n * MS;
      }
    }
    return { input, output, end: t, error };
  }

  private chatSpan(traceId: string, parentId: string, agent: DemoAgent, step: Extract<Step, { kind: 'model' }>, messages: Message[], t: bigint) {
    const calls = (step.tools ?? []).map((c) => ({ ...c, callId: `call_${this.rng.hex(12)}` }));
    const parts: Part[] = [];
    if (step.reasoning) parts.push({ type: 'reasoning', content: step.reasoning });
    for (const c of calls) parts.push({ type: 'tool_call', id: c.callId, name: c.name, arguments: c.args });
    if (step.text) parts.push(text(step.text));
    const finish = calls.length ? 'tool_call' : 'stop';
    const inputMessages = [...this.history, ...messages];
    const inChars = JSON.stringify(inputMessages).length + agent.instructions.length + 400 * agent.tools.length;
    const input = tokens(inChars);
    const reasoning = step.reasoning ? tokens(step.reasoning.length) * 3 : 0;
    const output = step.error ? 0 : tokens(JSON.stringify(parts).length) + reasoning;
    const cacheRead = input > 1200 ? Math.floor(input * 0.6 / 64) * 64 : 0;
    const dur = BigInt(this.rng.int(350, 1400) + output * 12) * MS;
    const spanId = this.rng.hex(8);
    this.spans.push({
      traceId, spanId, parentSpanId: parentId, name: `chat ${agent.model}`, kind: 3, startNs: t + MS, endNs: t + MS + dur,
      attributes: {
        // The app's own attributes (custom, outside the GenAI conventions): retries before this call
        // succeeded (a failed call used up its 3 tries) and the customer's plan.
        'app.retry_count': step.error ? 3 : RETRIES[bucket(spanId, RETRIES.length)],
        'app.customer_tier': customerTier(this.conv.userId),
        'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': agent.provider, 'gen_ai.request.model': agent.model,
        'gen_ai.conversation.id': this.conv.id, 'gen_ai.agent.name': agent.name,
        'gen_ai.request.temperature': agent.provider === 'openai' && agent.model.startsWith('o') ? undefined : 0.2,
        'gen_ai.request.max_tokens': 1024,
        'server.address': agent.provider === 'openai' ? 'api.openai.com' : 'api.anthropic.com',
        'server.port': 443,
        'gen_ai.system_instructions': JSON.stringify([text(agent.instructions)]),
        'gen_ai.tool.definitions': agent.tools.length
          ? JSON.stringify(agent.tools.map((name) => ({ type: 'function', name, description: TOOL_DESCRIPTIONS[name]?.description, parameters: { type: 'object', properties: Object.fromEntries(Object.entries(TOOL_DESCRIPTIONS[name]?.parameters ?? {}).map(([k, v]) => [k, { type: v }])) } })))
          : undefined,
        'gen_ai.input.messages': JSON.stringify(inputMessages),
        ...(step.error
          ? { 'error.type': step.error.type }
          : {
              'gen_ai.response.model': agent.responseModel,
              'gen_ai.response.id': `${agent.provider === 'openai' ? 'chatcmpl' : 'msg'}_${this.rng.hex(12)}`,
              'gen_ai.response.finish_reasons': [finish],
              'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts, finish_reason: finish }]),
              'gen_ai.usage.input_tokens': input,
              'gen_ai.usage.output_tokens': output,
              'gen_ai.usage.cache_read.input_tokens': cacheRead || undefined,
              'svc.reasoning_content': step.reasoning,
            }),
      },
      status: step.error ? { code: 2, message: step.error.message } : { code: 0 },
    });
    messages.push({ role: 'assistant', parts, finish_reason: finish });
    return { input: step.error ? 0 : input, output, end: t + MS + dur, callIds: calls.map((c) => c.callId) };
  }
}
