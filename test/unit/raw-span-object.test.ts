/**
 * The raw span's stored form made from the parsed span (domain/raw-span.ts stripSpanObject, issue 19
 * item 3) is the text the store's scans make from the printed span: every emitter fixture's spans and
 * the corner cases of the scans (ids printed twice, marks already there, keys that end in a key name,
 * message attributes elsewhere or not in their canonical form).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { rawKeys, stripMessageAttributes, stripSpanKeys, stripSpanObject, type SpanKeys } from '../../src/main/domain/raw-span.js';
import { messagesAttributeText } from '../../src/main/domain/messages-attribute.js';
import type { SpanMessage, SpanRecord } from '../../src/main/domain/span.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import { InputHistory } from '../../src/main/service/ingest/history.js';
import type { Obj } from '../../src/main/service/ingest/lenient.js';

type Messages = { input_messages: readonly SpanMessage[]; output_messages: readonly SpanMessage[] };

/** What the store makes of the printed span. */
const byScan = (span: Obj, keys: SpanKeys, m: Messages) => stripMessageAttributes(stripSpanKeys(JSON.stringify(span), keys), m);

/** stripSpanObject's answer, checked against the scans' (null: the caller falls back to them). */
function stored(span: Obj, keys: SpanKeys, m: Messages): string | null {
  const text = stripSpanObject(span, keys, m, 128);
  if (text !== null) expect(text).toBe(byScan(span, keys, m));
  return text;
}

const keys: SpanKeys = { trace_id: 'aa'.repeat(16), span_id: 'bb'.repeat(8), parent_span_id: 'cc'.repeat(8), start_ns: '1700000000000000001', end_ns: '1700000000000000009' };
const msgIn: SpanMessage[] = [{ role: 'user', content: 'where is "my" order?\n', parts: [{ type: 'text', content: 'where is "my" order?\n' }], finish_reason: '' }];
const msgOut: SpanMessage[] = [{ role: 'assistant', content: 'on its way', parts: [{ type: 'text', content: 'on its way' }], finish_reason: 'stop' }];
const m: Messages = { input_messages: msgIn, output_messages: msgOut };
const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });

function span(extra: Obj = {}, attributes: unknown[] = [attr('gen_ai.input.messages', messagesAttributeText(msgIn)), attr('gen_ai.output.messages', messagesAttributeText(msgOut))]): Obj {
  return {
    traceId: keys.trace_id, spanId: keys.span_id, parentSpanId: keys.parent_span_id, name: 'chat m', kind: 3,
    startTimeUnixNano: keys.start_ns, endTimeUnixNano: keys.end_ns, attributes, status: {}, ...extra,
  };
}

describe('the raw span stored form from the parsed span', () => {
  it('leaves out the ids, times and message attributes the scans leave out, and only those', () => {
    const all = stored(span(), keys, m)!;
    for (const k of ['traceId', 'spanId', 'parentSpanId', 'startTimeUnixNano', 'endTimeUnixNano']) expect(all).toContain(`"${k}":{"loupe":0}`);
    expect(all).toContain('{"loupe":"input_messages"}');
    expect(all).toContain('{"loupe":"output_messages"}');

    // A link into its own trace prints the trace id twice: it stays; one into another trace does not count.
    const own = stored(span({ links: [{ traceId: keys.trace_id, spanId: 'dd'.repeat(8) }] }), keys, m)!;
    expect(own).toContain(`"traceId":"${keys.trace_id}"`);
    expect(own).toContain('"spanId":{"loupe":0}');
    expect(stored(span({ links: [{ traceId: 'ee'.repeat(16), spanId: keys.span_id }] }), keys, m)).toContain('"traceId":{"loupe":0}');
    // A key whose text ends in a key name and prints the same value is a second occurrence.
    expect(stored(span({ extra: { 'x"spanId': keys.span_id } }), keys, m)).toContain(`"spanId":"${keys.span_id}"`);
    expect(stored(span({ 'x"spanId': 'other' }), keys, m)).toContain('"spanId":{"loupe":0}');
    // A mark already in the span: no key is left out (message attributes still are).
    const marked = stored(span({ attributesX: { endTimeUnixNano: { loupe: 0 } } }), keys, m)!;
    expect(marked).toContain(`"traceId":"${keys.trace_id}"`);
    expect(marked).toContain('{"loupe":"output_messages"}');
    stored(span({ traceId: { loupe: 0 } }), keys, m);
    stored(span({ traceId: { loupe: 0, x: 1 } }), keys, m);
    stored(span({ traceId: { loupe: -0 } }), keys, m);
    // Times as numbers, ids in another case, a missing parent: not the row's text.
    expect(stored(span({ startTimeUnixNano: 1700000000000000000, spanId: keys.span_id.toUpperCase(), parentSpanId: undefined }), keys, m)).toContain('"startTimeUnixNano":1700000000000000000');
    stored(span(), { ...keys, parent_span_id: null }, m);
    // The only occurrence is a link's (the span's own ids under other names): left to the scans.
    const snake = { ...span({ links: [{ traceId: keys.trace_id }] }), traceId: undefined, trace_id: keys.trace_id };
    expect(stripSpanObject(JSON.parse(JSON.stringify(snake)) as Obj, keys, m, 128)).toBeNull();
  });

  it('message attributes: canonical, exact and only once, else as the text scan decides', () => {
    const inText = messagesAttributeText(msgIn);
    const outText = messagesAttributeText(msgOut);
    const cases: unknown[][] = [
      [attr('gen_ai.output.messages', outText.replace(',', ', '))], // not the printed form
      [{ key: 'gen_ai.output.messages', value: { stringValue: outText }, x: 1 }],
      [{ value: { stringValue: outText }, key: 'gen_ai.output.messages' }],
      [{ key: 'gen_ai.output.messages', value: { stringValue: outText, x: 1 } }],
      [{ key: 'gen_ai.output.messages', value: { x: 1, stringValue: outText } }],
      [{ key: 'gen_ai.output.messages', value: [outText] }],
      [{ key: 'gen_ai.output.messages', value: { stringValue: 5 } }],
      [attr('gen_ai.output.messages', outText), attr('gen_ai.output.messages', outText)], // twice
      [attr('gen_ai.output.messages', 'x'), attr('gen_ai.output.messages', outText)], // the first is not it
      [attr('gen_ai.output.messages', outText), attr('gen_ai.output.messages', 'x')],
      [attr('gen_ai.input.messages', inText), { key: 'nested', value: { kvlistValue: { values: [attr('gen_ai.input.messages', inText)] } } }],
      [{ key: 'gen_ai.input.messages', value: { loupe: 'input_messages' } }],
      [],
    ];
    for (const attributes of cases) stored(span({}, attributes), keys, m);
    // Only in an event: the scan leaves it out there, and so does the fallback.
    const evented = stored(span({ events: [{ name: 'e', attributes: [attr('gen_ai.output.messages', outText)] }] }, []), keys, m)!;
    expect(evented).toContain('{"loupe":"output_messages"}');
    stored(span({ events: [{ name: 'e', attributes: [attr('gen_ai.output.messages', outText)] }] }), keys, m);
    // No messages parsed: the attributes stay.
    expect(stored(span(), keys, { input_messages: [], output_messages: [] })).toContain(inText.slice(0, 10).replace(/"/g, '\\"'));
  });

  it('a span nested deeper than the limit is left to the pruned print', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } };
    expect(stripSpanObject(span({}, [{ key: 'deep', value: deep }]), keys, m, 128)).toBeNull();
  });

  it("every emitter fixture's spans, as ingest parses them", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = path.join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.jsonl?$/.test(f)) files.push(p);
      }
    };
    walk(path.join(__dirname, '../fixtures'));
    let spans = 0;
    let left = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const docs: unknown[] = [];
      try {
        docs.push(JSON.parse(text));
      } catch {
        for (const line of text.split('\n')) {
          try {
            if (line.trim()) docs.push(JSON.parse(line));
          } catch {
            // not JSON: not a fixture of spans
          }
        }
      }
      for (const doc of docs.flat()) {
        if (typeof doc !== 'object' || doc === null || !('resourceSpans' in doc)) continue;
        const got: SpanRecord[] = [];
        walkRequest(doc, undefined, { span: (s) => got.push(s), skip: () => {} });
        // And as a SQLite import reads them (the history leaves repeated inputs out first).
        const viaHistory: SpanRecord[] = [];
        walkRequest(doc, undefined, { span: (s) => viaHistory.push(s), skip: () => {} }, undefined, new InputHistory());
        for (const s of got) {
          spans++;
          const obj = JSON.parse(s.raw_span_dump) as Obj;
          if (stored(obj, rawKeys(s), s) !== byScan(obj, rawKeys(s), s)) left++;
        }
        expect(viaHistory.length).toBe(got.length);
        for (const [i, s] of viaHistory.entries()) {
          if (!s.raw_span_stripped) continue;
          expect(s.raw_span_dump).toBe(byScan(JSON.parse(got[i]!.raw_span_dump) as Obj, rawKeys(s), s));
        }
      }
    }
    expect(spans).toBeGreaterThan(300);
    expect(left).toBeLessThan(spans / 10);
  });
});
