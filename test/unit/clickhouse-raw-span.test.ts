/**
 * The ClickHouse adapter's stored span forms (issue 19 item 1, ≤ 300 bytes per span), on a real server:
 * - the raw span (the span as received) is stored without the message attributes its parsed messages
 *   print back exactly and without the ids and times its row holds (domain/raw-span.ts), and every read
 *   of it (export, the spans list's details) gives the span back byte for byte as received — for the
 *   bench's history spans and for every emitter fixture, the same text as the SQLite store gives;
 * - spans dated past what a Date column holds (2149) are written to day 0, and the writer finds them
 *   there again (its read-back and its replaced count use the partition day, not the text day).
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import { importFile } from '../../src/main/service/ingest/index.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import type { TraceStore } from '../../src/main/store/ports.js';
import { openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { raw } from '../../src/main/store/clickhouse/sql.js';
import { encodeSpans } from '../../src/main/store/clickhouse/encode.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { withConnection } from '../helpers/clickhouse-server.js';
import { tempStores } from '../helpers/temp-store.js';
import { repoRoot } from '../helpers/paths.js';

const opened: TraceStore[] = [];
afterAll(() => Promise.all(opened.map((s) => s.close())));
const freshSqlite = tempStores('loupe-chraw-');

async function fresh(): Promise<{ url: string; store: ClickHouseTraceStore }> {
  const { url } = await freshClickHouseStore('raw');
  const store = await openClickHouseTraceStore(url);
  opened.push(store);
  return { url, store };
}

async function benchSpans(seed: number): Promise<SpanRecord[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chraw-')), 'g.jsonl');
  await generateJsonl(file, { minSpans: 300, conversations: 8, agents: 4, seed });
  const spans: SpanRecord[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, { span: (s) => spans.push(s), skip: () => {} });
  }
  return spans;
}

/** The exported raw spans of a project, per trace (sorted: the adapters' orders of equal start times differ). */
async function exported(store: TraceStore, project: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const t of await store.exportTraceIds({ project_id: project })) out.set(t, (await store.exportTraceSpans(project, t)).map((s) => s.raw_span).sort());
  return out;
}

/** The received raw spans of spans, per trace, sorted. */
function perTrace(spans: readonly SpanRecord[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of spans) out.set(s.trace_id, [...(out.get(s.trace_id) ?? []), s.raw_span_dump]);
  for (const list of out.values()) list.sort();
  return out;
}

const P = 'bench/genai';

describe('ClickHouse stored span forms', { timeout: 180_000 }, () => {
  it('the raw span is stored without its message attributes and keys, and export and the spans list give it back as received', async () => {
    const spans = await benchSpans(11);
    const { url, store } = await fresh();
    await store.writeSpans(spans);

    const stored = await withConnection(url, (ch) => ch.rows<{ span_id: string; raw_span: string }>(raw('SELECT span_id, raw_span FROM span_payloads')));
    expect(stored).toHaveLength(spans.length);
    // Every generated message attribute prints back exactly, and every span prints its ids as its row holds them.
    const withInput = new Set(spans.filter((s) => s.input_messages.length).map((s) => s.span_id));
    expect(withInput.size).toBeGreaterThan(100);
    for (const r of stored) {
      expect(r.raw_span).not.toContain('"gen_ai.input.messages","value":{"stringValue"');
      expect(r.raw_span).toContain('"spanId":{"loupe":0}');
      if (withInput.has(r.span_id)) expect(r.raw_span).toContain('{"key":"gen_ai.input.messages","value":{"loupe":"input_messages"}}');
    }
    const received = spans.reduce((n, s) => n + s.raw_span_dump.length, 0);
    const kept = stored.reduce((n, r) => n + r.raw_span.length, 0);
    expect(kept).toBeLessThan(received / 2);

    // Export: each span as received, byte for byte.
    expect(await exported(store, P)).toEqual(perTrace(spans));

    // The spans list's details (what the Spans page and MCP get_span show).
    const listed = await store.listSpans({
      project_id: P, started_after_ns: null, started_before_ns: null, where: null, custom_columns: [], include_costs: false, include_details: true,
      sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 1000, offset: 0,
    });
    expect(listed.spans).toHaveLength(spans.length);
    const byKey = new Map(spans.map((s) => [`${s.trace_id}/${s.span_id}`, s.raw_span_dump]));
    for (const s of listed.spans) expect(s.raw_span_dump).toBe(byKey.get(`${s.trace_id}/${s.span_id}`));
  });

  it("every emitter fixture's spans export from ClickHouse exactly as from SQLite, stripped or not", async () => {
    const { store } = await fresh();
    const sqlite = await freshSqlite();
    const dir = path.join(repoRoot, 'test/fixtures/emitters');
    let files = 0;
    for (const name of fs.readdirSync(dir)) {
      const f = path.join(dir, name, 'trace.json');
      if (!fs.existsSync(f)) continue;
      files++;
      await importFile(store, f, { projectId: 'corpus' });
      await importFile(sqlite.traces, f, { projectId: 'corpus' });
    }
    expect(files).toBeGreaterThan(20);
    const [fromClickHouse, fromSqlite] = [await exported(store, 'corpus'), await exported(sqlite.traces, 'corpus')];
    expect([...fromSqlite.values()].flat().length).toBeGreaterThan(200);
    expect(fromClickHouse).toEqual(fromSqlite);
  });

  it('spans dated past 2149 are stored in day 0 and the writer finds them there: summaries count them, a re-write replaces them', async () => {
    const spans = await benchSpans(12);
    const late = spans[0]!.trace_id;
    // One trace moved to 2189 (past the Date column's last day, 2149-06-06): its spans go to day 0.
    const shift = BigInt(Date.UTC(2189, 5, 1) - Date.UTC(2026, 0, 1)) * 1_000_000n;
    const moved = spans.map((s) => (s.trace_id === late ? { ...s, start_ns: s.start_ns! + shift, end_ns: s.end_ns == null ? null : s.end_ns + shift } : s));
    const lateCount = moved.filter((s) => s.trace_id === late).length;
    expect(lateCount).toBeGreaterThan(1);
    // The writer's keys name the partition the rows go to, not the text day: how a server reads a Date
    // past 2149 written as text differs by release (18.16: day 0; later ones saturate to 2149-06-06).
    const keyDays = new Set(encodeSpans(moved.filter((s) => s.trace_id === late)).keys.map((k) => k[3]));
    expect([...keyDays]).toEqual(['1970-01-01']);
    const { url, store } = await fresh();
    expect(await store.writeSpans(moved)).toMatchObject({ inserted: spans.length, replaced: 0 });
    const days = await withConnection(url, (ch) =>
      ch.rows<{ day: number }>(raw(`SELECT DISTINCT toUInt16(day) AS day FROM spans WHERE trace_id = '${late}'`)),
    );
    expect(days).toEqual([{ day: 0 }]); // (18.16 prints day 0 as 0000-00-00, later releases as 1970-01-01)
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
    const summary = await withConnection(url, (ch) =>
      ch.rows<{ span_count: number; first_day: number }>(raw(`SELECT span_count, toUInt16(first_day) AS first_day FROM trace_summaries FINAL WHERE trace_id = '${late}' AND deleted = 0`)),
    );
    expect(summary).toEqual([{ span_count: lateCount, first_day: 0 }]);
    // Time windows find them in day 0: after 2100 (only them), before 2200 (all), after the first start (all).
    const count = async (after: bigint | null, before: bigint | null) =>
      (await store.listSpans({
        project_id: P, started_after_ns: after, started_before_ns: before, where: null, custom_columns: [], include_costs: false, include_details: false,
        sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 1, offset: 0,
      })).total_count;
    const ns = (y: number) => BigInt(Date.UTC(y, 0, 1)) * 1_000_000n;
    const first = moved.reduce((m, s) => (s.start_ns! < m ? s.start_ns! : m), moved[0]!.start_ns!);
    expect([await count(ns(2100), null), await count(null, ns(2200)), await count(first, null), await count(first, ns(2100))]).toEqual([
      lateCount, spans.length, spans.length, spans.length - lateCount,
    ]);
    // Written again (a re-import): every span of it is a replacement, none is new.
    expect(await store.writeSpans(moved.filter((s) => s.trace_id === late))).toMatchObject({ inserted: 0, replaced: lateCount });
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
  });
});
