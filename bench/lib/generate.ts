/**
 * Generates a realistic OTLP JSONL file of GenAI agent traces for the benchmarks, as the collector
 * file exporter writes them (one ExportTraceServiceRequest per line, here one turn per line).
 * Each conversation has 2–8 turns; a turn is `invoke_agent` → rounds of `chat` (tool call) →
 * `execute_tool`, then a final `chat` with the answer. Spans carry gen_ai.conversation.id, parts
 * messages, tokens, request parameters and a few custom attributes. Deterministic for a seed.
 *
 * Every model call carries the conversation so far, as real agents send it (issue 19): the system
 * prompt, every earlier turn's question, tool calls, tool results and answer, then this turn's
 * question and rounds. So a chat span's input grows from one call to the next, and most of a store's
 * message bytes are repeats — ~2.2 KB of OTLP JSON per span on average (≈1.5 KB without history).
 * Shared by the SQLite and ClickHouse scale benches (`npm run bench -- scale [clickhouse]`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { seededRandom } from '../../src/shared/seeded-random.js';

export interface GenerateOptions {
  conversations?: number;
  agents?: number;
  /** Stop after at least this many spans (the file may hold a few more: whole turns only). */
  minSpans?: number;
  seed?: number;
  /**
   * Write the workload in parts of about this many spans (whole turns), part i to `${file}.${i}`, each
   * closed before the next is opened: the scale bench reads each part from its own FIFO and measures
   * the store between parts (its per-million figures).
   */
  partSpans?: number;
}

const MODELS: [string, string][] = [
  ['openai', 'gpt-4o-mini'], ['openai', 'gpt-4o'], ['anthropic', 'claude-3-5-haiku-latest'],
  ['anthropic', 'claude-sonnet-4-5'], ['gcp.gemini', 'gemini-2.0-flash'], ['openai', 'o3-mini'],
];
const TOOLS = ['lookup_order', 'search_docs', 'create_ticket', 'refund_payment', 'get_weather', 'send_email', 'query_db', 'fetch_url'];
const WORDS = (
  'order shipment refund invoice account password delivery address tracking warehouse customer premium ' +
  'subscription cancel upgrade payment card declined status delayed weekend express support policy return'
).split(' ');


/** A word in one trace of every RARE_EVERY (from trace RARE_AT on): ~20 traces in a 10M-span workload. */
export const RARE_WORD = 'kumquat';
const RARE_EVERY = 100_003;
const RARE_AT = 50_000;

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0').slice(-len);
const kv = (key: string, v: string | number | boolean) =>
  typeof v === 'string' ? { key, value: { stringValue: v } }
  : typeof v === 'boolean' ? { key, value: { boolValue: v } }
  : Number.isInteger(v) ? { key, value: { intValue: String(v) } }
  : { key, value: { doubleValue: v } };
const attrs = (o: Record<string, string | number | boolean | undefined>) =>
  Object.entries(o).filter((e): e is [string, string | number | boolean] => e[1] !== undefined).map(([k, v]) => kv(k, v));

/** Writes the file (or its parts); resolves with the number of spans, lines and parts written. */
export async function generateJsonl(file: string, o: GenerateOptions = {}): Promise<{ spans: number; lines: number; bytes: number; parts: number }> {
  const conversations = o.conversations ?? 20_000;
  const agents = Array.from({ length: o.agents ?? 50 }, (_, i) => `agent-${String(i).padStart(2, '0')}`);
  const minSpans = o.minSpans ?? 1_000_000;
  const rand = seededRandom(o.seed ?? 42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const sentence = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

  const parts = o.partSpans ?? 0;
  let part = 0;
  let out = fs.createWriteStream(parts ? `${file}.${part}` : file);
  let spans = 0;
  let lines = 0;
  let bytes = 0;
  let buf: string[] = [];
  let traceSeq = 0;
  const t0 = Date.parse('2026-10-01T00:00:00Z');

  const flush = async () => {
    const chunk = buf.join('');
    buf = [];
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  };

  outer: for (let round = 0; ; round++) {
    for (let c = 0; c < conversations; c++) {
      const convId = `conv-${round}-${c}`;
      const agent = agents[c % agents.length]!;
      const [provider, model] = MODELS[c % MODELS.length]!;
      const user = `user-${c % 997}`;
      const turns = 2 + Math.floor(rand() * 7);
      let clock = t0 + (round * conversations + c) * 60_000;
      // The conversation so far: what every model call of a later turn sends before its own question
      // (each message kept as its JSON text, so a call's input is a join, not a re-serialization).
      let conversationSoFar = [JSON.stringify({ role: 'system', parts: [{ type: 'text', content: `You are ${agent}, a support agent. Use the tools you are given.` }] })];
      for (let turn = 0; turn < turns; turn++) {
        const traceId = hex(++traceSeq, 16) + hex(c * 7919 + turn, 16);
        let spanSeq = 0;
        const sid = () => hex(traceSeq * 64 + ++spanSeq, 16);
        const rootId = sid();
        // One trace in 100,003 asks about a word found nowhere else (the scale bench's rare-word search).
        const question = `${sentence(4 + Math.floor(rand() * 6))}?${traceSeq % RARE_EVERY === RARE_AT ? ` ${RARE_WORD} too?` : ''}`;
        const list: unknown[] = [];
        let t = clock;
        const toolRounds = Math.floor(rand() * 3);
        let inTok = 0;
        let outTok = 0;
        const history = [...conversationSoFar, JSON.stringify({ role: 'user', parts: [{ type: 'text', content: question }] })];
        for (let r = 0; r <= toolRounds; r++) {
          const last = r === toolRounds;
          const tool = pick(TOOLS);
          const callId = `call_${traceSeq}_${r}`;
          const args = { query: sentence(2), id: `A-${1000 + Math.floor(rand() * 9000)}` };
          const answer = last ? sentence(5 + Math.floor(rand() * 10)) : '';
          const it = 200 + Math.floor(rand() * 1800);
          const ot = 20 + Math.floor(rand() * 300);
          inTok += it;
          outTok += ot;
          const dur = 300 + Math.floor(rand() * 2500);
          const output = last
            ? [{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]
            : [{ role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: tool, arguments: args }], finish_reason: 'tool_calls' }];
          const error = !last && rand() < 0.02;
          list.push({
            traceId, spanId: sid(), parentSpanId: rootId, name: `chat ${model}`, kind: 3,
            startTimeUnixNano: `${t}000000`, endTimeUnixNano: `${t + dur}000000`,
            attributes: attrs({
              'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model,
              'gen_ai.response.model': model, 'gen_ai.response.id': `resp-${traceSeq}-${r}`, 'gen_ai.conversation.id': convId,
              'gen_ai.agent.name': agent, 'gen_ai.request.temperature': 0.2, 'gen_ai.request.max_tokens': 1024,
              'gen_ai.usage.input_tokens': it, 'gen_ai.usage.output_tokens': ot,
              'gen_ai.usage.cache_read.input_tokens': rand() < 0.3 ? Math.floor(it / 2) : undefined,
              'gen_ai.input.messages': `[${history.join(',')}]`, 'gen_ai.output.messages': JSON.stringify(output),
              'app.region': pick(['eu-west-1', 'us-east-1', 'ap-south-1']), 'app.attempt': 1 + Math.floor(rand() * 2), 'app.cached': rand() < 0.3,
            }),
            status: error ? { code: 2, message: 'rate limited' } : {},
          });
          t += dur + 5;
          if (last) history.push(JSON.stringify(output[0]));
          else {
            const tdur = 20 + Math.floor(rand() * 400);
            const result = { status: pick(['ok', 'pending', 'shipped']), detail: sentence(4) };
            list.push({
              traceId, spanId: sid(), parentSpanId: rootId, name: `execute_tool ${tool}`, kind: 1,
              startTimeUnixNano: `${t}000000`, endTimeUnixNano: `${t + tdur}000000`,
              attributes: attrs({
                'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': callId,
                'gen_ai.tool.call.arguments': JSON.stringify(args), 'gen_ai.tool.call.result': JSON.stringify(result),
                'gen_ai.conversation.id': convId,
              }),
              status: {},
            });
            history.push(JSON.stringify(output[0]), JSON.stringify({ role: 'tool', parts: [{ type: 'tool_call_response', id: callId, response: result }] }));
            t += tdur + 5;
          }
        }
        conversationSoFar = history;
        list.unshift({
          traceId, spanId: rootId, name: `invoke_agent ${agent}`, kind: 1,
          startTimeUnixNano: `${clock}000000`, endTimeUnixNano: `${t}000000`,
          attributes: attrs({
            'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent, 'gen_ai.agent.id': `id-${agent}`,
            'gen_ai.provider.name': provider, 'gen_ai.request.model': model, 'gen_ai.conversation.id': convId, 'svc.user_id': user,
            'gen_ai.usage.input_tokens': inTok, 'gen_ai.usage.output_tokens': outTok,
          }),
          status: {},
        });
        const req = {
          resourceSpans: [{
            resource: { attributes: attrs({ 'service.name': `svc-${agent}`, 'svc.project_id': 'bench/genai' }) },
            scopeSpans: [{ scope: { name: 'bench.generator', version: '1' }, spans: list }],
          }],
        };
        buf.push(JSON.stringify(req), '\n');
        spans += list.length;
        lines++;
        clock = t + 30_000;
        if (buf.length >= 2000) await flush();
        if (parts && spans >= (part + 1) * parts && spans < minSpans) {
          await flush();
          out.end();
          await once(out, 'finish');
          out = fs.createWriteStream(`${file}.${++part}`);
        }
      }
      if (spans >= minSpans) break outer;
    }
  }
  await flush();
  out.end();
  await once(out, 'finish');
  return { spans, lines, bytes, parts: part + 1 };
}

/**
 * CLI, for streaming a workload without keeping it: `tsx bench/lib/generate.ts <path> <minSpans> [seed] [partSpans]`
 * writes the JSONL to `path` (a FIFO the importer reads, in the scale section) — or, with partSpans,
 * to `path.0`, `path.1`, … — and prints one JSON line {spans, lines, bytes, parts, ms, cpuMs} when done.
 */
async function cli(): Promise<void> {
  const [file, minSpans, seed, partSpans] = process.argv.slice(2);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const r = await generateJsonl(file!, {
    minSpans: Number(minSpans), seed: seed === undefined || seed === '' ? undefined : Number(seed), partSpans: partSpans === undefined ? undefined : Number(partSpans),
  });
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ ...r, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await cli();
