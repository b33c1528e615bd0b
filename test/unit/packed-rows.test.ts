/**
 * Prepared rows packed into one transferred buffer per batch (store/sqlite/packed-rows.ts; issue 19
 * item 3): what the writer thread unpacks is every value exactly as the ingest worker prepared it —
 * type and value (−0, NaN, bigints beyond int64, undefined), strings code unit for code unit (lone
 * surrogates, non-ASCII, very long ones), byte arrays and bodies byte for byte — across the buffer's
 * growth, with rows dropped between `add` and `batch` left out, a row that cannot be packed leaving
 * nothing behind, and the buffer moved to another thread's port by transfer.
 */
import { BIG_DICTIONARY_BYTES, DICTIONARY_BYTES } from '../../src/main/store/sqlite/body-codec.js';
import { describe, expect, it } from 'vitest';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { RowPacker, isPackedRows, preparedRows, unpackRows, type PackedRow, type PackedRows } from '../../src/main/store/sqlite/packed-rows.js';
import { PACK_DICT_AT, prepareSpan } from '../../src/main/store/sqlite/ingest.js';
import { spanPacker, splitBatch } from '../../src/main/store/sqlite/trace-store.js';
import { ImportSession, type BatchWriter } from '../../src/main/service/ingest/session.js';
import { importJsonText } from '../../src/main/service/ingest/buffer.js';
import { DecodeBudget } from '../../src/main/service/ingest/budget.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';

/**
 * A text naming every value's type and exact value (−0 ≠ 0, NaN = NaN; strings through JSON.stringify,
 * which escapes lone surrogates; bytes as hex), so one comparison checks whole batches exactly.
 */
function canon(v: unknown): string {
  if (v instanceof Uint8Array) return `x:${Buffer.from(v).toString('hex')}`;
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  switch (typeof v) {
    case 'number':
      return `n:${Object.is(v, -0) ? '-0' : String(v)}`;
    case 'bigint':
      return `b:${v}`;
    case 'string':
      return `s:${JSON.stringify(v)}`;
    case 'object':
      if (v === null) return 'null';
      return `{${Object.keys(v).sort().map((k) => `${k}=${canon((v as Record<string, unknown>)[k])}`).join(',')}}`;
    default:
      return `${typeof v}:${String(v)}`;
  }
}

const same = (a: unknown, b: unknown) => expect(canon(b)).toBe(canon(a));

const LONE = ['\ud800', 'a\udc00b', '\udc00\ud800', 'x\ud83d', '\ude00y', '😀', 'é', 'ü\u0000z', '日本語', '', '\uffff\ufffe'];
const dictAt = [true, true, false, false, false];

function sampleRows(n: number): unknown[][] {
  const rows: unknown[][] = [];
  for (let i = 0; i < n; i++) {
    rows.push([
      // dictionary positions: repeated and unique strings, a lone surrogate, non-strings
      i % 3 === 0 ? 'project/a' : `p-${i % 7}${LONE[i % LONE.length]}`,
      i % 2 ? null : LONE[i % LONE.length],
      // everything else
      [
        undefined, null, true, false, 0, -0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 53 + 2, 0.1 + i, NaN, Infinity, -Infinity,
        0n, 1_700_000_000_123_456_789n + BigInt(i), -(2n ** 63n), 2n ** 63n - 1n, 2n ** 63n, -(2n ** 63n) - 1n, 2n ** 64n + BigInt(i),
      ],
      Buffer.from(`bytes ${i} ${LONE[i % LONE.length]}`),
      i % 4 === 0
        ? { blob: Buffer.from([i & 255, 1, 2, 3]), dict_hash: null, dict: null }
        : { blob: Buffer.alloc(i % 50, i & 255), dict_hash: i % 4 === 1 ? 'dict-one' : 'dict-two', dict: Buffer.from(i % 4 === 1 ? 'zstd dictionary one' : 'zstd dictionary two') },
    ]);
  }
  return rows;
}

/** The spans of one JSONL line as an import session normalizes them. */
function spansOf(line: string): SpanRecord[] {
  const spans: SpanRecord[] = [];
  const session = new ImportSession({ prepare: (s: SpanRecord) => spans.push(s), write: () => undefined }, 'acme/packed', undefined, 64, 'sqlite');
  importJsonText(session, line, 'jsonl', 'body', new DecodeBudget('body'));
  return spans;
}

function packAll(packer: RowPacker, rows: unknown[][]): PackedRows {
  return packer.batch(rows.map((r) => packer.add(r)));
}

describe('packed rows', () => {
  it('unpack to the very values packed, in batches that outgrow the buffer many times', () => {
    const packer = new RowPacker(dictAt, 16);
    for (const n of [1, 300, 2_000, 5]) {
      const rows = sampleRows(n);
      const batch = packAll(packer, rows);
      expect(batch.rows).toBe(n);
      same(rows, unpackRows(batch));
    }
  });

  it('keeps very long strings, ASCII and not, and strings at dictionary positions longer than a dictionary entry', () => {
    const ascii = 'a'.repeat(3 << 20);
    const wide = `${'é日\ud800'.repeat(400_000)}\udfff`;
    const rows = [[ascii, wide, wide, ascii, 'short'], [`${'x'.repeat(600)}`, 'x'.repeat(600), null, null, null]];
    const batch = packAll(new RowPacker(dictAt, 64), rows);
    const back = unpackRows(batch);
    // compared directly (a canonical text of megabytes of escaped surrogates is slow to build)
    expect(back.map((r) => r.length)).toEqual([5, 5]);
    rows.forEach((r, i) => r.forEach((v, j) => expect(back[i]![j] === v, `row ${i} value ${j}`).toBe(true)));
    expect((back[0]![1] as string).length).toBe(1_200_001);
  });

  it('shares one string per distinct dictionary value and sends each body dictionary once', () => {
    const resource = JSON.stringify({ 'service.name': 'checkout', 'host.name': 'build-7', 'process.runtime': 'node 20' });
    const rows = sampleRows(40).map((r, i) => [i % 2 ? resource : 'acme/project', ...r.slice(1)]);
    const packer = new RowPacker(dictAt, 64);
    const batch = packAll(packer, rows);
    const back = unpackRows(batch);
    same(rows, back);
    // one string object for every row of the batch holding the value
    expect(back.filter((r) => r[0] === resource).length).toBe(20);
    expect(new Set(back.map((r) => r[0])).size).toBe(2);
    const twoBodies = back.filter((r) => (r[4] as { dict_hash: string | null }).dict_hash === 'dict-one');
    expect(twoBodies.length).toBeGreaterThan(2);
    // The same dictionary object for every body of the batch that names it (decoded once).
    expect(new Set(twoBodies.map((r) => (r[4] as { dict: Buffer }).dict)).size).toBe(1);
    // Without a dictionary the same rows take more bytes (the repeated project id is written each time).
    const plain = packAll(new RowPacker([false, false, false, false, false], 64), rows);
    expect(plain.byteLength).toBeGreaterThan(batch.byteLength);
    same(rows, unpackRows(plain));
  });

  it('leaves out rows dropped after add and rows it could not pack', () => {
    const packer = new RowPacker(dictAt, 32);
    const rows = sampleRows(30);
    const handles: PackedRow[] = [];
    const kept: unknown[][] = [];
    rows.forEach((r, i) => {
      const h = packer.add(r);
      // every third row is dropped (as an input's broken tail would be)
      if (i % 3 !== 1) {
        handles.push(h);
        kept.push(r);
      }
      // a row holding something no SQLite column takes is refused and leaves nothing behind
      if (i % 5 === 2) expect(() => packer.add(['project/a', 'fine', [1, 2, { not: 'bindable' }], null, null])).toThrow(TypeError);
      if (i % 7 === 3) expect(() => packer.add(['p', 'q', [Symbol('s')], null, null])).toThrow(TypeError);
    });
    const batch = packer.batch(handles);
    expect(batch.rows).toBe(kept.length);
    same(kept, unpackRows(batch));
    // the next batch starts empty
    const next = packAll(packer, rows.slice(0, 2));
    same(rows.slice(0, 2), unpackRows(next));
  });

  it('moves to another port by transfer and unpacks there', () => {
    const rows = sampleRows(200);
    const packer = new RowPacker(dictAt, 64);
    const batch = packAll(packer, rows);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage({ batch }, [batch.packed]);
    expect(batch.packed.byteLength).toBe(0); // detached on the sending side: moved, not copied
    const got = receiveMessageOnPort(port2)!.message as { batch: PackedRows };
    port1.close();
    expect(isPackedRows(got.batch)).toBe(true);
    same(rows, preparedRows(got.batch));
  });

  it('gives the writer the rows prepareSpan makes, for real spans, through an import session', () => {
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) {
      const t = traceBuilder({ seed: `packed-${i}`, start: '2026-12-02T09:00:00Z' });
      const root = t.span('invoke_agent a', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a', 'gen_ai.conversation.id': `c${i % 3}` } });
      t.span('chat m', {
        parent: root,
        attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: `question ${i} ${LONE[i % LONE.length]}` }], output: [{ role: 'assistant', content: `answer ${i}` }], inputTokens: 9, outputTokens: 4 }),
      });
      lines.push(JSON.stringify(t.request()));
    }
    // Each row as prepareSpan made it, packed by the same packer spanPacker uses (prepareSpan is run
    // once a span: its body encoder changes after its first DICTIONARY_SAMPLES bodies, bodies.ts).
    const prepared: unknown[][] = [];
    const packedRows: unknown[][] = [];
    const packer = new RowPacker(PACK_DICT_AT, 64);
    const writer: BatchWriter<unknown> = {
      prepare: (s: SpanRecord) => {
        const row = prepareSpan(s);
        prepared.push(row);
        return packer.add(row);
      },
      write: (handles) => {
        const b = packer.batch(handles as PackedRow[]);
        for (const one of splitBatch({ adapter: 'sqlite', count: b.rows, payload: b })) packedRows.push(...(one.payload as unknown[][]));
      },
    };
    const session = new ImportSession(writer, 'acme/packed', undefined, 7, 'sqlite');
    importJsonText(session, lines.join('\n'), 'jsonl', 'body', new DecodeBudget('body'));
    session.flush();
    expect(packedRows).toHaveLength(80);
    expect(PACK_DICT_AT).toHaveLength(packedRows[0]!.length);
    same(prepared, packedRows);
    // and spanPacker's batches are such buffers, transferred whole
    const sp = spanPacker();
    const batch = sp.batch([sp.prepare(spansOf(lines[0]!)[0]!)]);
    expect(isPackedRows(batch.payload) && batch.transfer?.[0] === batch.payload.packed).toBe(true);
  });
  it('cuts a batch by bytes as well as by spans (spans with large texts make several batches of 1,024)', () => {
    const lines: string[] = [];
    for (let i = 0; i < 30; i++) {
      const t = traceBuilder({ seed: `big-${i}`, start: '2026-12-02T09:00:00Z' });
      // ~20 KB of searchable text a span (not compressed in the row: the search index's texts)
      const text = Array.from({ length: 2_000 }, (_, k) => `w${(i * 7919 + k * 104_729) % 1_000_003}`).join(' ');
      t.span('chat m', { attributes: chatAttributes({ model: 'gpt-4o', input: [{ role: 'user', content: text }], output: [{ role: 'assistant', content: `answer ${i}` }] }) });
      lines.push(JSON.stringify(t.request()));
    }
    const maxBytes = 64 << 10;
    const sp = spanPacker(maxBytes);
    const batches: { rows: number; bytes: number; lines: (number | null)[] }[] = [];
    let largestRow = 0;
    let before = 0;
    const writer: BatchWriter<unknown> = {
      prepare: (s: SpanRecord) => {
        const h = sp.prepare(s);
        largestRow = Math.max(largestRow, h.end - h.start);
        return h;
      },
      full: () => sp.full(),
      write: (handles, ls) => {
        const b = sp.batch(handles);
        const p = b.payload as PackedRows;
        batches.push({ rows: p.rows, bytes: p.byteLength, lines: [...ls] });
        before += p.rows;
      },
    };
    const session = new ImportSession(writer, 'acme/big', undefined, 1024, 'sqlite');
    importJsonText(session, lines.join('\n'), 'jsonl', 'body', new DecodeBudget('body'));
    session.flush();
    expect(before).toBe(30);
    expect(largestRow).toBeGreaterThan(maxBytes / 8);
    expect(batches.length).toBeGreaterThan(3);
    // each batch stops at the first span that reaches the bound: at most the bound plus one row and the body dictionaries
    // it carries (the writing thread's 32 KiB one, or its 128 KiB one once it has seen enough bodies — earlier tests in
    // the same worker count too, so either may come with a batch here)
    for (const b of batches) expect(b.bytes).toBeLessThan(maxBytes + 2 * largestRow + DICTIONARY_BYTES + BIG_DICTIONARY_BYTES);
    expect(batches.flatMap((b) => b.lines)).toEqual(lines.map((_, i) => i + 1));
  });
});
