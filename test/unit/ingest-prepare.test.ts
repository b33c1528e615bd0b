/**
 * Rows prepared span by span (BatchWriter.prepare, service/ingest/session.ts; issue 19 item 3): an
 * import session whose writer encodes each span as it is normalized hands the writer the same rows,
 * with the same lines, as one that encodes whole batches, and reports a span the encoder refuses the
 * same way (counts, reason, message, line, order), so a worker import's report does not depend on
 * which path its adapter takes.
 */
import { describe, expect, it } from 'vitest';
import { ImportSession, type BatchWriter, type ParseReport } from '../../src/main/service/ingest/session.js';
import { importJsonText } from '../../src/main/service/ingest/buffer.js';
import { DecodeBudget } from '../../src/main/service/ingest/budget.js';
import { encodeBatch, splitBatch } from '../../src/main/store/sqlite/trace-store.js';
import { spanEncoder } from '../../src/main/store/index.js';
import { BIG_DICTIONARY_AT } from '../../src/main/store/sqlite/bodies.js';
import { dictionaryHash } from '../../src/main/store/sqlite/body-codec.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';

/** Spans whose encoding fails (as a tree too deep to serialize would): by span id. */
const REFUSED = new Set<string>();
const refuse = (s: SpanRecord) => {
  if (REFUSED.has(s.span_id)) throw new Error(`cannot encode span ${s.span_id}`);
};

interface Written {
  rows: unknown[][];
  lines: (number | null)[];
  batches: number;
}

/** The SQLite encoder, whole batches at a time (a failing batch re-encoded span by span, as worker-writer.ts does). */
function batchWriter(out: Written): BatchWriter {
  return {
    write(spans, lines, reject) {
      out.batches++;
      spans.forEach((s, i) => {
        try {
          refuse(s);
        } catch (e) {
          return reject(i, e);
        }
        out.rows.push(...(encodeBatch([s]).payload as unknown[][]));
        out.lines.push(lines[i] ?? null);
      });
    },
  };
}

/** The same encoder span by span as they are normalized. */
function eagerWriter(out: Written): BatchWriter<unknown> {
  const perSpan = spanEncoder('sqlite')!;
  return {
    prepare: (s) => {
      refuse(s);
      return perSpan.prepare(s);
    },
    write(rows, lines) {
      out.batches++;
      out.rows.push(...(splitBatch(perSpan.batch(rows)).map((b) => (b.payload as unknown[][])[0]!)));
      out.lines.push(...lines);
    },
  };
}

/** A JSONL text of `n` one-trace lines of 3 spans each, with a broken line in the middle. */
function jsonl(n: number, seed = 'prepare'): { text: string; ids: string[] } {
  const lines: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = traceBuilder({ seed: `${seed}-${i}`, start: '2026-12-02T09:00:00Z' });
    const root = t.span('invoke_agent a', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': `c${i % 3}` } });
    const chat = t.span('chat m', { parent: root, attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: `question ${i}` }], output: [{ role: 'assistant', content: `answer ${i}` }], inputTokens: 9, outputTokens: 4 }) });
    const tool = t.span('execute_tool lookup', { parent: root, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } });
    ids.push(root.spanId, chat.spanId, tool.spanId);
    lines.push(JSON.stringify(t.request()));
    if (i === Math.floor(n / 2)) lines.push('{"resourceSpans": [');
  }
  return { text: lines.join('\n'), ids };
}

function run(writer: BatchWriter<unknown>, text: string, batchSpans: number): ParseReport {
  const session = new ImportSession(writer, 'acme/prepare', undefined, batchSpans, 'sqlite');
  importJsonText(session, text, 'jsonl', 'body', new DecodeBudget('body'));
  session.flush();
  return session.parseReport();
}

describe('rows prepared span by span', () => {
  it('gives the writer the rows and lines whole-batch encoding gives, and reports refused spans the same', () => {
    const { text, ids } = jsonl(20);
    // Refused: the first span, two in one batch, the last span of a batch (batches of 7), the very last.
    REFUSED.clear();
    for (const i of [0, 4, 5, 13, ids.length - 1]) REFUSED.add(ids[i]!);
    // The thread's body encoder compresses its first DICTIONARY_SAMPLES bodies without a dictionary and
    // the rest with ones made from them, the bigger past BIG_DICTIONARY_AT bodies (bodies.ts); test files
    // share a process, so other files may have used some: past that count first, both runs below
    // compress with the same dictionary.
    const warm = jsonl(Math.ceil(BIG_DICTIONARY_AT / 3) + 1, 'warm');
    run(batchWriter({ rows: [], lines: [], batches: 0 }), warm.text, 64);
    const byBatch: Written = { rows: [], lines: [], batches: 0 };
    const bySpan: Written = { rows: [], lines: [], batches: 0 };
    const a = run(batchWriter(byBatch), text, 7);
    const b = run(eagerWriter(bySpan), text, 7);

    expect(b).toEqual(a);
    expect(a.spans_skipped).toBe(REFUSED.size);
    const refusedIds = a.errors.filter((e) => /could not be stored/.test(e.message)).map((e) => ids.find((id) => e.message.includes(id)));
    expect(refusedIds).toEqual([0, 4, 5, 13, ids.length - 1].map((i) => ids[i]));
    expect(a.errors.filter((e) => /invalid JSON/.test(e.message))).toHaveLength(1);
    expect(a.errors.every((e) => typeof e.line === 'number')).toBe(true);
    expect(bySpan.lines).toEqual(byBatch.lines);
    expect(bySpan.rows.length).toBe(ids.length - REFUSED.size);
    // Compressed bodies included (the same dictionary on both sides, see `warm`); a body's dictionary
    // (128 KiB) compared by the hash of its bytes: deep equality walks a buffer byte by byte.
    const dictsHashed = (rows: unknown[][]) =>
      rows.map((r) => r.map((v) => (v && typeof v === 'object' && Buffer.isBuffer((v as { dict?: unknown }).dict) ? { ...v, dict: dictionaryHash((v as { dict: Buffer }).dict) } : v)));
    expect(dictsHashed(bySpan.rows)).toEqual(dictsHashed(byBatch.rows));
    expect(byBatch.rows.filter((r) => r.some((v) => v && typeof v === 'object' && Buffer.isBuffer((v as { dict?: unknown }).dict)))).toHaveLength(byBatch.rows.length);
    expect(bySpan.batches).toBe(byBatch.batches);
  });
});
