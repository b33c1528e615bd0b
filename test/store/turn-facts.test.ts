/**
 * TraceStore.turnsFacts on SQLite reads each chat span's input only as far back as the walk reads it
 * (inputTailSuffices): its own messages after its base's (migration 0021), extended base by base,
 * not the whole conversation history. On the conversation-history workload its facts equal turnFacts
 * of the whole spans — those of a store holding every input whole, and of the same store's full
 * read — for every turn, before and after bases are deleted.
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFile } from '../../src/main/service/ingest/index.js';
import { ImportSession, StoreWriter } from '../../src/main/service/ingest/session.js';
import { importJsonLine } from '../../src/main/service/ingest/document.js';
import { factsOfTurns } from '../../src/main/store/turn-spans.js';
import { inputTailSuffices } from '../../src/main/domain/chat/walk.js';
import type { TurnRef } from '../../src/main/store/ports.js';
import type { SpanMessage } from '../../src/main/domain/span.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-turn-facts-');

/** Every turn of the store's conversations, and its bare traces. */
function turnsOf(file: string): { project: string; refs: TurnRef[] }[] {
  const db = openStoreFile(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT project_id, conversation_id, trace_id FROM conversation_turns ORDER BY project_id, conversation_id, turn_start_ns`).all() as { project_id: string; conversation_id: string; trace_id: string }[];
    const by = new Map<string, TurnRef[]>();
    for (const r of rows) by.set(r.project_id, [...(by.get(r.project_id) ?? []), { trace_id: r.trace_id, conversation_id: r.conversation_id }]);
    return [...by].map(([project, refs]) => ({ project, refs }));
  } finally {
    db.close();
  }
}

const continued = (file: string) => {
  const db = openStoreFile(file, { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM span_bodies WHERE input_base IS NOT NULL`).pluck().get() as number;
  } finally {
    db.close();
  }
};

/** turnsFacts of `store` against turnFacts of `reference`'s whole spans, chunk by chunk; returns turns compared. */
async function expectSameFacts(store: TestStores, reference: TestStores): Promise<number> {
  let n = 0;
  for (const { project, refs } of turnsOf(store.file)) {
    for (let i = 0; i < refs.length; i += 100) {
      const chunk = refs.slice(i, i + 100);
      const want = factsOfTurns(chunk, await reference.traces.turnsSpans(project, chunk));
      expect(await store.traces.turnsFacts(project, chunk)).toEqual(want);
      expect(await reference.traces.turnsFacts(project, chunk)).toEqual(want);
      n += chunk.filter((_, j) => want[j] !== null).length;
    }
  }
  return n;
}

/**
 * Bare model calls (no agent span) of one conversation: turn 1's call failed with the question only,
 * turn 2's calls send it again followed by the new question, then a tool round. Turn 2's first call
 * continues turn 1's input with a user message only, so its question ("q1" and "q2" — the trailing
 * user run) lies partly in its base; its second call's question lies wholly in its bases.
 */
function userRunLines(): string {
  const m = (role: string, parts: unknown[]) => JSON.stringify({ role, parts });
  const text = (t: string) => ({ type: 'text', content: t });
  const sys = m('system', [text('You answer orders.')]);
  const q1 = m('user', [text('Where is my order A-1001 please?')]);
  const q2 = m('user', [text('Hello? Is anybody reading my order question?')]);
  const call = m('assistant', [{ type: 'tool_call', id: 'call_9', name: 'lookup_order', arguments: { id: 'A-1001' } }]);
  const result = m('tool', [{ type: 'tool_call_response', id: 'call_9', response: { status: 'shipped' } }]);
  const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
  let t = 1_790_000_000_000;
  const chat = (trace: string, id: string, input: string[], output: string | null, error = false) => {
    t += 1000;
    return {
      traceId: trace, spanId: id, name: 'chat gpt-4o', kind: 3, startTimeUnixNano: `${t}000000`, endTimeUnixNano: `${t + 500}000000`,
      attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('gen_ai.conversation.id', 'c-user-run'),
        kv('gen_ai.input.messages', `[${input.join(',')}]`), ...(output ? [kv('gen_ai.output.messages', `[${output}]`)] : [])],
      status: error ? { code: 2, message: 'timeout' } : {},
    };
  };
  const tool = (trace: string, id: string) => {
    t += 1000;
    return {
      traceId: trace, spanId: id, name: 'execute_tool lookup_order', kind: 1, startTimeUnixNano: `${t}000000`, endTimeUnixNano: `${t + 50}000000`,
      attributes: [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'lookup_order'), kv('gen_ai.tool.call.id', 'call_9'), kv('gen_ai.conversation.id', 'c-user-run')],
      status: {},
    };
  };
  const line = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv('svc.project_id', 'facts/user-run')] }, scopeSpans: [{ spans }] }] });
  const t1 = '1'.repeat(32);
  const t2 = '2'.repeat(32);
  return [
    line([chat(t1, '1'.repeat(16), [sys, q1], null, true)]),
    line([
      chat(t2, '2'.repeat(16), [sys, q1, q2], call),
      tool(t2, '3'.repeat(16)),
      chat(t2, '4'.repeat(16), [sys, q1, q2, call, result], m('assistant', [text('It shipped yesterday.')])),
    ]),
  ].join('\n');
}

const user = (text: string): SpanMessage => ({ role: 'user', parts: [{ type: 'text', content: text }], content: '', finish_reason: '' });
const assistant = (text: string): SpanMessage => ({ role: 'assistant', parts: [{ type: 'text', content: text }], content: '', finish_reason: '' });
const tool: SpanMessage = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'ok' }], content: '', finish_reason: '' };

describe('turn facts read from input tails (SQLite continued inputs)', () => {
  it('a tail suffices once it holds the whole trailing user run and a user text', () => {
    expect(inputTailSuffices([])).toBe(false);
    expect(inputTailSuffices([assistant('a'), user('q')])).toBe(true);
    // The run of user messages may go on before the tail.
    expect(inputTailSuffices([user('p'), user('q')])).toBe(false);
    // A later round of the turn: the question is further back.
    expect(inputTailSuffices([assistant(''), tool])).toBe(false);
    expect(inputTailSuffices([assistant('a'), user('q'), assistant(''), tool])).toBe(true);
  });

  it('equal turnFacts of the whole spans for every turn, also after bases are deleted', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-turn-facts-gen-'));
    const file = path.join(dir, 'history.jsonl');
    // Conversations of up to 8 turns with tool rounds: chains of bases within and across turns.
    await generateJsonl(file, { conversations: 12, agents: 3, minSpans: 900, seed: 19 });
    appendFileSync(file, `${userRunLines()}\n`);
    const kept = await freshStore();
    const whole = await freshStore();
    await importFile(kept.traces, file);
    const session = new ImportSession(new StoreWriter(whole.traces), undefined);
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (line.trim()) importJsonLine(session, line, i + 1);
    });
    await session.finish();
    expect(continued(kept.file)).toBeGreaterThan(100);
    expect(continued(whole.file)).toBe(0);

    const turns = await expectSameFacts(kept, whole);
    expect(turns).toBeGreaterThan(150);
    // The turn whose question starts in its base: both user messages, as the chat shows them.
    const [runTurn] = await kept.traces.turnsFacts('facts/user-run', [{ trace_id: '2'.repeat(32), conversation_id: 'c-user-run' }]);
    expect(runTurn?.question).toBe('Where is my order A-1001 please?\n\nHello? Is anybody reading my order question?');
    expect(runTurn?.tool_calls.map((c) => c.name)).toEqual(['lookup_order']);

    // Every third trace deleted: later calls lose their bases (the bases hand their messages over).
    for (const s of [kept, whole]) {
      for (const { project, refs } of turnsOf(s.file)) {
        const doomed = [...new Set(refs.map((r) => r.trace_id))].filter((_, i) => i % 3 === 0);
        await s.traces.deleteSpans({ kind: 'traces', project_id: project, trace_ids: doomed });
      }
    }
    expect(await expectSameFacts(kept, whole)).toBeLessThan(turns);
  });
});
