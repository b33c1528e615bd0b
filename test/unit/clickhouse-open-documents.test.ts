/**
 * A ClickHouse writer's open documents of the term index (store/clickhouse/search-index.ts,
 * OpenDocuments): what a later batch of a conversation writes, and the bound on what they hold. The
 * server side (reuse checked against search_docs, answers equal to one write) is in
 * clickhouse-search-index.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { OpenDocuments, searchDocsOf, type TermSource } from '../../src/main/store/clickhouse/search-index.js';

const DAY = '2026-10-01';
const span = (conversation: string, trace: string, text: string): TermSource => ({ project_id: 'p', trace_id: trace, conversation_id: conversation, day: DAY, texts: [text] });
type Line = { doc: number; trace_ids: string[]; terms: number[] };
const parse = (lines: string[]) => lines.map((l) => JSON.parse(l) as Line);

describe('a writer\'s open documents', () => {
  it('a later batch adds its new traces and only the terms the document lacks; nothing is recorded until commit', () => {
    const open = new OpenDocuments();
    const first = open.lines([searchDocsOf([span('c', 't1', 'where is my parcel')])], new Set());
    const [a] = parse(first.lines);
    expect(a!.trace_ids).toEqual(['t1']);
    // Not committed (the insert failed): the next batch starts the document again, whole.
    const again = parse(open.lines([searchDocsOf([span('c', 't1', 'where is my parcel')])], new Set([a!.doc])).lines);
    expect(again[0]!.doc).not.toBe(a!.doc);
    const stored = open.lines([searchDocsOf([span('c', 't1', 'where is my parcel')])], new Set());
    stored.commit();
    const [doc] = parse(stored.lines);
    const wanted = open.wanted([searchDocsOf([span('c', 't2', 'where is my parcel now')])]);
    expect([...wanted.get('p')!]).toEqual([[doc!.doc, 1]]);
    const next = open.lines([searchDocsOf([span('c', 't2', 'where is my parcel now')])], new Set([doc!.doc]));
    const [added] = parse(next.lines);
    expect(added!.doc).toBe(doc!.doc);
    expect(added!.trace_ids).toEqual(['t2']);
    const whole = searchDocsOf([span('c', 't2', 'where is my parcel now')]);
    expect(added!.terms.length).toBe(whole.terms.length - doc!.terms.length); // the trigrams of ' now' only: the rest was there
    next.commit();
    // A document the server no longer holds whole (not among `reusable`) is started again.
    const restarted = parse(open.lines([searchDocsOf([span('c', 't3', 'where is my parcel')])], new Set()).lines);
    expect(restarted[0]!.doc).not.toBe(doc!.doc);
    expect(restarted[0]!.terms.length).toBe(searchDocsOf([span('c', 't3', 'where is my parcel')]).terms.length);
  });

  it('hold at most their bound of terms, dropping the least recently written first', () => {
    const text = (i: number) => `conversation number ${i} said something`;
    const perDoc = searchDocsOf([span('c0', 't0', text(0))]).terms.length;
    const open = new OpenDocuments(perDoc * 3);
    for (let i = 0; i < 5; i++) open.lines([searchDocsOf([span(`c${i}`, `t${i}`, text(i))])], new Set()).commit();
    const wanted = (i: number) => open.wanted([searchDocsOf([span(`c${i}`, `u${i}`, text(i))])]).get('p')?.size ?? 0;
    expect([0, 1, 2, 3, 4].map(wanted)).toEqual([0, 0, 1, 1, 1]);
  });
});
