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
import {
  BODY_FIELDS, BodyDecoder, BodyEncoder, buildDictionary, packBody, restoreMessageAttributes, stripMessageAttributes, unpackBody, type SpanBody,
} from '../../src/main/store/sqlite/body-codec.js';
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

  it('names a body that cannot be read', () => {
    const dec = new BodyDecoder(() => null);
    const blob = new BodyEncoder(buildDictionary([Buffer.alloc(4096, 'a')])).encode(Object.fromEntries(BODY_FIELDS.map((f) => [f, 'x'])) as SpanBody);
    expect(() => dec.decode(7, blob)).toThrow(/dictionary 7, which the store does not hold/);
    expect(() => unpackBody(Buffer.from([5, 0, 0, 0, 65]))).toThrow(/cut short inside its system_instructions field/);
  });
});
