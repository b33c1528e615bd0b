/**
 * The compressed span body (issue 8 item 5): for the bench's spans and every emitter fixture's spans,
 * the body comes back field for field, the raw span as received comes back byte for byte from the
 * stripped one and the stored messages, and the bench's bodies shrink to the measured size.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFile } from '../../src/main/service/ingest/index.js';
import { BIG_DICTIONARY_BYTES, BODY_FIELDS, BodyDecoder, BodyEncoder, DICTIONARY_BYTES, buildDictionary, packBody, unpackBody, type SpanBody } from '../../src/main/store/sqlite/body-codec.js';
import { BIG_DICTIONARY_AT, DICTIONARY_SAMPLES, ThreadBodyEncoder } from '../../src/main/store/sqlite/bodies.js';
import { restoreMessageAttributes, restoreSpanKeys, stripMessageAttributes, stripSpanKeys, type SpanKeys } from '../../src/main/domain/raw-span.js';
import type { SpanMessage } from '../../src/main/domain/span.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { repoRoot } from '../helpers/paths.js';
import { tempStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-codec-');

/** Bodies as readers see them (the span_details view), from a store's file: the codec's input. */
function bodies(file: string): SpanBody[] {
  const db = openStoreFile(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT ${BODY_FIELDS.map((f) => (f === 'raw_span' ? 'raw_span_dump AS raw_span' : f)).join(', ')} FROM span_details ORDER BY span_rowid`).all() as SpanBody[];
    return rows.map((r) => ({
      ...r,
      raw_span: stripMessageAttributes(r.raw_span!, { input_messages: JSON.parse(r.input_messages!) as SpanMessage[], output_messages: JSON.parse(r.output_messages!) as SpanMessage[] }),
      original: r.raw_span,
    }));
  } finally {
    db.close();
  }
}

function roundTrip(list: (SpanBody & { original?: string | null })[], dictionary: Buffer | null) {
  const enc = new BodyEncoder(dictionary);
  const dec = new BodyDecoder((id) => (id === 1 ? dictionary : null));
  let packed = 0;
  let compressed = 0;
  for (const b of list) {
    const { original, ...body } = b;
    expect(unpackBody(packBody(body))).toEqual(body);
    const blob = enc.encode(body);
    expect(dec.decode(dictionary ? 1 : 0, blob)).toEqual(body);
    expect(restoreMessageAttributes(body.raw_span!, body)).toBe(original);
    packed += packBody(body).length;
    compressed += blob.length;
  }
  return { packed: packed / list.length, compressed: compressed / list.length };
}

describe('span body codec', () => {
  it("the bench's spans: exact round trip, message attributes left out of the raw span, ~10x smaller with a dictionary of the store's own spans", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-codec-gen-'));
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 40, agents: 5, minSpans: 3000, seed: 3 });
    const store = await freshStore();
    await importFile(store.traces, file);
    const all = bodies(store.file);
    // Every generated message attribute prints back exactly: all of them leave the raw span.
    expect(all.filter((b) => b.raw_span!.includes('"gen_ai.input.messages","value":{"stringValue"'))).toHaveLength(0);
    const dictionary = buildDictionary(all.slice(0, 500).map((b) => packBody(b)));
    expect(dictionary).not.toBeNull();
    const rest = all.slice(500);
    const withDict = roundTrip(rest, dictionary);
    const without = roundTrip(rest.slice(0, 300), null);
    expect(withDict.compressed).toBeLessThan(withDict.packed / 6);
    expect(withDict.compressed).toBeLessThan(without.compressed / 2);
  }, 60_000);

  it("every emitter fixture's spans come back exactly, stripped or not", async () => {
    const store = await freshStore();
    const dir = path.join(repoRoot, 'test/fixtures/emitters');
    for (const name of readdirSync(dir)) {
      const f = path.join(dir, name, 'trace.json');
      if (existsSync(f)) await importFile(store.traces, f, { projectId: 'corpus' });
    }
    const all = bodies(store.file);
    expect(all.length).toBeGreaterThan(200);
    roundTrip(all, buildDictionary(all.map((b) => packBody(b))));
  }, 60_000);

  it("the span's ids and times leave the stored raw span when it prints them as the row does, and come back exactly", async () => {
    const keys: SpanKeys = { trace_id: 'aa'.repeat(16), span_id: 'bb'.repeat(8), parent_span_id: null, start_ns: '1700000000000000001', end_ns: null };
    const raw = `{"traceId":"${keys.trace_id}","spanId":"${keys.span_id}","startTimeUnixNano":"${keys.start_ns}","endTimeUnixNano":"5"}`;
    const stripped = stripSpanKeys(raw, keys);
    expect(stripped).toBe('{"traceId":{"loupe":0},"spanId":{"loupe":0},"startTimeUnixNano":{"loupe":0},"endTimeUnixNano":"5"}');
    expect(restoreSpanKeys(stripped, keys)).toBe(raw);
    // A link to its own trace prints the trace id twice: ambiguous, so it stays; a number time is not the row's text.
    const linked = `{"traceId":"${keys.trace_id}","startTimeUnixNano":1700000000000000001,"links":[{"traceId":"${keys.trace_id}"}]}`;
    expect(stripSpanKeys(linked, keys)).toBe(linked);
    // A raw span that already holds a mark is kept whole.
    const marked = `{"traceId":"${keys.trace_id}","attributes":{"spanId":{"loupe":0}}}`;
    expect(stripSpanKeys(marked, keys)).toBe(marked);
    expect(() => restoreSpanKeys('{"parentSpanId":{"loupe":0}}', keys)).toThrow(/left out its parentSpanId/);

    // As stored: the bench's bodies hold marks, and the span_details view gives the raw span as received.
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-codec-keys-'));
    const file = path.join(dir, 'gen.jsonl');
    await generateJsonl(file, { conversations: 5, agents: 2, minSpans: 300, seed: 5 });
    const store = await freshStore();
    await importFile(store.traces, file);
    const db = openStoreFile(store.file, { readonly: true });
    try {
      const dicts = new Map((db.prepare('SELECT id, bytes FROM dictionaries').all() as { id: number; bytes: Buffer }[]).map((r) => [r.id, r.bytes]));
      const dec = new BodyDecoder((id) => dicts.get(id) ?? null);
      const stored = db.prepare('SELECT dict_id, body FROM span_bodies ORDER BY span_rowid').all() as { dict_id: number; body: Buffer }[];
      const raws = stored.map((r) => dec.decode(r.dict_id, r.body).raw_span!);
      expect(raws.filter((r) => r.includes('"traceId":{"loupe":0}') && r.includes('"spanId":{"loupe":0}') && r.includes('"startTimeUnixNano":{"loupe":0}'))).toHaveLength(raws.length);
      const lines = (await import('node:fs')).readFileSync(file, 'utf8').trim().split('\n');
      const received = new Map(lines.flatMap((l) => (JSON.parse(l) as { resourceSpans: { scopeSpans: { spans: { spanId: string; traceId: string }[] }[] }[] }).resourceSpans[0]!.scopeSpans[0]!.spans).map((sp) => [sp.spanId, sp]));
      const view = db.prepare('SELECT s.span_id, d.raw_span_dump FROM spans s JOIN span_details d ON d.span_rowid = s.id').all() as { span_id: string; raw_span_dump: string }[];
      expect(view.length).toBe(raws.length);
      for (const v of view) expect(JSON.parse(v.raw_span_dump)).toEqual(received.get(v.span_id));
    } finally {
      db.close();
    }
  }, 60_000);

  it('a body is stored without the frame magic number; a whole frame (stored before) reads the same', () => {
    const samples = Array.from({ length: 40 }, (_, i) => packBody(Object.fromEntries(BODY_FIELDS.map((f) => [f, `${f} ${i} ${'lorem ipsum '.repeat(i % 7)}`])) as SpanBody));
    for (const dictionary of [buildDictionary(samples), null]) {
      const enc = new BodyEncoder(dictionary);
      const dec = new BodyDecoder((id) => (id === 1 ? dictionary : null));
      const dictId = dictionary ? 1 : 0;
      for (let i = 0; i < 60; i++) {
        const body = Object.fromEntries(BODY_FIELDS.map((f, k) => [f, (i + k) % 5 === 0 ? null : `${f} #${i} ${'x'.repeat(i * k)} é ✓`])) as SpanBody;
        const blob = enc.encode(body);
        expect(blob.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))).toBe(false);
        expect(dec.decode(dictId, blob)).toEqual(body);
        // The same frame whole, as bodies were stored before (and as better-sqlite3 hands a copy back).
        const whole = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), blob]);
        expect(dec.decode(dictId, whole)).toEqual(body);
        expect(dec.decode(dictId, Buffer.from(blob))).toEqual(body);
      }
    }
  });

  it('a writing thread: no dictionary, then 32 KiB from its first bodies, then 128 KiB from the same bodies', () => {
    const enc = new ThreadBodyEncoder();
    const dicts = new Map<string, Buffer>();
    const seen: (string | null)[] = [];
    const encoded: { blob: Buffer; hash: string | null; body: SpanBody }[] = [];
    for (let i = 0; i < BIG_DICTIONARY_AT + 10; i++) {
      const text = `span ${i}: ${'order shipment refund invoice account '.repeat(20 + (i % 9))} #${i * 7919}`;
      const src = { system_instructions: null, tool_definitions: null, tool_call_arguments: `{"id":"A-${i}"}`, tool_call_result: null,
        input_messages: '[]', output_messages: '[]', events: '[]', links: '[]', raw_span_dump: JSON.stringify({ name: text }),
        input_parsed: [], output_parsed: [], stripped: true };
      const out = enc.encode(src);
      if (out.dict_hash && out.dict) dicts.set(out.dict_hash, out.dict);
      if (seen.at(-1) !== out.dict_hash) seen.push(out.dict_hash);
      if (i % 97 === 0 || i === DICTIONARY_SAMPLES || i === BIG_DICTIONARY_AT) {
        encoded.push({ blob: out.blob, hash: out.dict_hash, body: { ...src, raw_span: src.raw_span_dump } });
      }
    }
    expect(seen).toHaveLength(3);
    expect(seen[0]).toBeNull();
    expect(dicts.get(seen[1]!)!.length).toBe(DICTIONARY_BYTES);
    expect(dicts.get(seen[2]!)!.length).toBe(BIG_DICTIONARY_BYTES);
    const ids = [...dicts.keys()];
    const dec = new BodyDecoder((id) => dicts.get(ids[id - 1]!) ?? null);
    for (const e of encoded) {
      const { raw_span_dump: _, input_parsed: _i, output_parsed: _o, stripped: _s, ...body } = e.body as unknown as Record<string, unknown>;
      expect(dec.decode(e.hash ? ids.indexOf(e.hash) + 1 : 0, e.blob)).toEqual(body);
    }
  });

  it('names a body that cannot be read', () => {
    const dec = new BodyDecoder(() => null);
    const blob = new BodyEncoder(buildDictionary([Buffer.alloc(4096, 'a')])).encode(Object.fromEntries(BODY_FIELDS.map((f) => [f, 'x'])) as SpanBody);
    expect(() => dec.decode(7, blob)).toThrow(/dictionary 7, which the store does not hold/);
    expect(() => unpackBody(Buffer.from([5, 0, 0, 0, 65]))).toThrow(/cut short inside its system_instructions field/);
  });
});
