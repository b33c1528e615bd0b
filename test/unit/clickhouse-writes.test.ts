/**
 * The ClickHouse adapter's write path on a real server: re-imports replace (never duplicate), several
 * writers at once store every span exactly once and leave the summaries exactly as one writer would,
 * a re-imported span that changed is read in its new version only (FINAL, no PREWHERE before it),
 * and deletes keep the summaries exact.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { generateJsonl } from '../../bench/lib/generate.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import type { TraceStore } from '../../src/main/store/ports.js';
import type { SpanScope } from '../../src/main/domain/plans.js';
import { openClickHouseTraceStore, type ClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { raw } from '../../src/main/store/clickhouse/sql.js';
import { encodeSpans, PAYLOAD_ROW, SPAN_COLUMNS, SPAN_ROW } from '../../src/main/store/clickhouse/encode.js';
import { setVersion } from '../../src/main/store/clickhouse/row-binary.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';
import { withConnection } from '../helpers/clickhouse-server.js';
import { loupeBin } from '../helpers/spawn-loupe.js';
import { summariesSnapshot } from '../helpers/store-snapshot.js';

const run = promisify(execFile);

const opened: TraceStore[] = [];
afterAll(() => Promise.all(opened.map((s) => s.close())));

async function fresh(): Promise<{ url: string; store: ClickHouseTraceStore }> {
  const { url } = await freshClickHouseStore('w');
  const store = await openClickHouseTraceStore(url);
  opened.push(store);
  return { url, store };
}

/** The bench generator's OTLP JSONL file of ~300 spans (several conversations, agents, tool calls, costs). */
async function benchFile(): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chw-')), 'g.jsonl');
  await generateJsonl(file, { minSpans: 300, conversations: 8, agents: 4 });
  return file;
}

/** The spans of benchFile(). */
async function benchSpans(file?: string): Promise<SpanRecord[]> {
  file ??= await benchFile();
  const spans: SpanRecord[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    walkRequest(JSON.parse(line) as Record<string, unknown>, undefined, { span: (s) => spans.push(s), skip: () => {} });
  }
  return spans;
}

const P = 'bench/genai';
const scope: SpanScope = { project_id: P, started_after_ns: null, started_before_ns: null, where: null };
const snapshot = (store: TraceStore) => summariesSnapshot(store, P);

/** Days marked as holding several versions of a span (scans merge versions there only). */
async function dirtyDays(url: string): Promise<number> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const r = await ch.rows<{ n: string }>(raw('SELECT count() AS n FROM dirty_days FINAL WHERE dirty = 1'));
    return Number(r[0]!.n);
  } finally {
    await ch.close();
  }
}

async function rowCount(url: string, table: string): Promise<number> {
  const ch = await ClickHouse.connect(parseStoreUrl(url));
  try {
    const r = await ch.rows<{ n: string }>(raw(`SELECT count() AS n FROM ${table} FINAL WHERE deleted = 0 SETTINGS optimize_move_to_prewhere = 0`));
    return Number(r[0]!.n);
  } finally {
    await ch.close();
  }
}

// Each write is a handful of round trips to the server; on a busy machine a test takes tens of seconds.
describe('ClickHouse adapter writes', { timeout: 180_000 }, () => {
  it('re-importing replaces: counts say replaced, every span is stored once, summaries unchanged', async () => {
    const spans = await benchSpans();
    const { url, store } = await fresh();
    expect(await store.writeSpans(spans)).toMatchObject({ inserted: spans.length, replaced: 0 });
    expect(await dirtyDays(url)).toBe(0); // a fresh import stores one version of each span: scans read it as stored
    const before = await snapshot(store);
    const again = await store.writeSpans(spans);
    expect(again).toMatchObject({ inserted: 0, replaced: spans.length });
    expect(await dirtyDays(url)).toBeGreaterThan(0); // two versions now: scans merge them
    expect(await rowCount(url, 'spans')).toBe(spans.length);
    expect(await snapshot(store)).toEqual(before);
    // Merged (as the store does once writes pause): the same answers without merging at read time.
    expect((await store.maintain(0)).length).toBeGreaterThan(0);
    expect(await dirtyDays(url)).toBe(0);
    expect(await snapshot(store)).toEqual(before);
  });

  it('two Loupe instances writing at once (same and overlapping batches) store every span exactly once, with the summaries of one writer', async () => {
    const spans = await benchSpans();
    const sequential = await fresh();
    await sequential.store.writeSpans(spans);
    const expected = await snapshot(sequential.store);

    // Two stores on one database = two Loupe instances (separate connections and writers). Batches are
    // cut differently so the same trace arrives in pieces from both, in different orders.
    const { url, store: a } = await fresh();
    const b = await openClickHouseTraceStore(url);
    opened.push(b);
    const cut = (list: SpanRecord[], size: number) => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
    const reversed = [...spans].reverse();
    await Promise.all([
      (async () => { for (const batch of cut(spans, 71)) await a.writeSpans(batch); })(),
      (async () => { for (const batch of cut(reversed, 97)) await b.writeSpans(batch); })(),
    ]);
    expect(await rowCount(url, 'spans')).toBe(spans.length);
    expect(await rowCount(url, 'span_payloads')).toBe(spans.length);
    expect(await dirtyDays(url)).toBeGreaterThan(0); // each writer saw the other's copies
    expect(await snapshot(a)).toEqual(expected);
    await a.maintain(0);
    expect(await snapshot(b)).toEqual(expected);
  });

  it('two `loupe import` processes importing the same traces at once (as two team members would) store every span exactly once', async () => {
    const file = await benchFile();
    const spans = await benchSpans(file);
    const sequential = await fresh();
    await sequential.store.writeSpans(spans);
    const expected = await snapshot(sequential.store);

    // The second importer reads the turns in reverse order: both write every trace, in different orders.
    const reversed = path.join(path.dirname(file), 'reversed.jsonl');
    fs.writeFileSync(reversed, fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).reverse().join('\n') + '\n');
    const { url, store } = await fresh();
    const importer = (f: string) =>
      run(process.execPath, [loupeBin, 'import', f, '--data-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-chw-dir-')), '--store', url, '--json'], { env: { ...process.env, LOUPE_STORE: '' } });
    const reports = await Promise.all([importer(file), importer(reversed)]);
    for (const r of reports) expect(r.stdout).toContain(`"spans_imported"`);
    expect(await rowCount(url, 'spans')).toBe(spans.length);
    expect(await rowCount(url, 'span_payloads')).toBe(spans.length);
    expect(await snapshot(store)).toEqual(expected);
  });

  it('rows go in as RowBinary in the tables\' own column types, and every value comes back exactly as written', async () => {
    const { url, store } = await fresh();
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      // The encoder's column list against the server's tables: a migration that changes a type or drops a column fails here.
      for (const [table, row] of [['spans', SPAN_ROW], ['span_payloads', PAYLOAD_ROW]] as const) {
        const described = new Map((await ch.rows<{ name: string; type: string }>(raw(`DESCRIBE TABLE ${table}`))).map((c) => [c.name, c.type]));
        expect(row.map(([c]) => [c, described.get(c)])).toEqual(row.map(([c, t]) => [c, t]));
      }
      const base = (await benchSpans()).find((s) => s.operation_name === 'chat')!;
      const long = 'ünïcødé 🦉 '.repeat(20); // multi-byte, over 128 bytes: a two-byte length
      const edge: SpanRecord = {
        ...base, trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), parent_span_id: null,
        span_name: 'x'.repeat(42), status_message: '🦉'.repeat(21), // 42 UTF-16 units, 84 bytes: the one-byte-length path at its edge
        start_ns: -1_500_000_000n, end_ns: 9_007_199_254_740_993n, // before 1970; beyond 2^53
        input_tokens: 2 ** 40 + 3, output_tokens: -7, server_port: null, request_temperature: 0.1 + 0.2, total_cost_usd: 0.001539 + 0.004215,
        custom_attrs_int: { big: 9_223_372_036_854_775_807n as unknown as number, neg: -(2 ** 40) - 3, zero: 0 },
        custom_attrs_float: { f: 1e-300, g: -0.5 }, custom_attrs_bool: { t: true, f: false }, custom_attrs_string: { long, empty: '' },
        finish_reasons: ['stop', long], tool_call_result: long, events: [{ name: 'e', at: 12_345_678_901_234_567_890n }],
      };
      await store.writeSpans([edge]);
      const [row] = await ch.rows<Record<string, unknown>>(
        raw(`SELECT toUInt16(day) AS d, toUInt16(day) = toUInt16(toDate('1969-12-31')) AS as_text, span_name, status_message, start_ns, end_ns, input_tokens, output_tokens, server_port, request_temperature, total_cost_usd,
          int_keys, int_values, float_keys, float_values, bool_keys, bool_values, str_keys, str_values, finish_reasons, tool_call_result, version > 0 AS versioned
          FROM spans WHERE span_id = '${'b'.repeat(16)}'`),
      );
      expect(row).toEqual({
        // d: before 1970, day 0, as the server stores such a day written as text
        d: 0, as_text: 1, span_name: edge.span_name, status_message: edge.status_message, start_ns: '-1500000000', end_ns: '9007199254740993',
        input_tokens: String(2 ** 40 + 3), output_tokens: '-7', server_port: null, request_temperature: 0.1 + 0.2, total_cost_usd: 0.001539 + 0.004215,
        int_keys: ['big', 'neg', 'zero'], int_values: ['9223372036854775807', String(-(2 ** 40) - 3), '0'], float_keys: ['f', 'g'], float_values: [1e-300, -0.5],
        bool_keys: ['t', 'f'], bool_values: [1, 0], str_keys: ['long', 'empty'], str_values: [long, ''], finish_reasons: ['stop', long], tool_call_result: long, versioned: 1,
      });
      const [payload] = await ch.rows<{ input_messages: string; events: string; raw_span: string }>(
        raw(`SELECT input_messages, events, raw_span FROM span_payloads WHERE span_id = '${'b'.repeat(16)}'`),
      );
      expect(JSON.parse(payload!.input_messages)).toEqual(JSON.parse(JSON.stringify(edge.input_messages)));
      expect(payload!.events).toBe('[{"name":"e","at":"12345678901234567890"}]');
      // Stored without what its rows hold (clickhouse-raw-span.test.ts), read back as received.
      expect(payload!.raw_span).not.toBe(edge.raw_span_dump);
      expect((await store.exportTraceSpans(P, edge.trace_id)).map((s) => s.raw_span)).toEqual([edge.raw_span_dump]);
      // A fraction in an Int64 column is refused by the encoder, naming the column (it was a server parse error before).
      expect(() => encodeSpans([{ ...edge, input_tokens: 1.5 }])).toThrow(/input_tokens: 1\.5 is not a whole number/);
    } finally {
      await ch.close();
    }
  });

  it('reads only the newest version of a changed span, also through filters on the changed column', async () => {
    const spans = await benchSpans();
    const { store } = await fresh();
    await store.writeSpans(spans);
    const target = spans.find((s) => s.operation_name === 'chat' && s.agent_name)!;
    const oldAgent = target.agent_name!;
    await store.writeSpans([{ ...target, agent_name: 'renamed-agent', status_code: 'ERROR' }]);
    const bySpan = (agent: string) =>
      store.listSpans({
        ...scope,
        where: {
          kind: 'and',
          args: [
            { kind: 'compare', op: 'eq', left: { kind: 'column', column: 'span_id', type: 'string' }, right: { kind: 'literal', type: 'string', value: target.span_id } },
            { kind: 'compare', op: 'eq', left: { kind: 'column', column: 'agent_name', type: 'string' }, right: { kind: 'literal', type: 'string', value: agent } },
          ],
        },
        custom_columns: [], include_costs: false, include_details: false, sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 10, offset: 0,
      });
    expect((await bySpan(oldAgent)).total_count).toBe(0);
    expect((await bySpan('renamed-agent')).spans.map((s) => s.status_code)).toEqual(['ERROR']);
    const agents = await store.agents({ project_id: P, agent_name: 'renamed-agent', include_costs: true, sort: [{ field: 'agent_name', direction: 'asc' }], limit: 10, offset: 0 });
    expect(agents.agents).toMatchObject([{ agent_name: 'renamed-agent', span_count: 1, error_count: 1 }]);
  });

  it('a span re-imported with a start on another day is read once: its old day gets a tombstone', async () => {
    const spans = await benchSpans();
    const { url, store } = await fresh();
    await store.writeSpans(spans);
    const target = spans.find((s) => s.operation_name === 'chat' && s.start_ns !== null && s.end_ns !== null)!;
    const twoDays = 2n * 86_400n * 1_000_000_000n;
    // Its start moves two days on: the new version goes to another day's partition, where a merge of the old one cannot reach it.
    await store.writeSpans([{ ...target, start_ns: target.start_ns! + twoDays, end_ns: target.end_ns! + twoDays }]);
    const list = (where: SpanScope['where']) =>
      store.listSpans({
        ...scope, where, custom_columns: [], include_costs: false, include_details: false, sort: [{ ref: { kind: 'column', column: 'started_at' }, direction: 'desc' }], limit: 10, offset: 0,
      });
    const bySpan = () => list({ kind: 'compare', op: 'eq', left: { kind: 'column', column: 'span_id', type: 'string' }, right: { kind: 'literal', type: 'string', value: target.span_id } });
    const count = async () => (await list(null)).total_count;
    // What a store holding only the moved version answers (agents, conversations, threads, groups).
    const direct = await fresh();
    await direct.store.writeSpans(spans.map((s) => (s === target ? { ...s, start_ns: s.start_ns! + twoDays, end_ns: s.end_ns! + twoDays } : s)));
    const expected = await snapshot(direct.store);
    for (const merged of [false, true]) {
      if (merged) await store.maintain(0); // the days merged, as the store does once writes pause: still one
      expect(await snapshot(store)).toEqual(expected);
      const page = await bySpan();
      expect(page.total_count).toBe(1);
      expect(page.spans.map((s) => Date.parse(s.started_at!))).toEqual([Number((target.start_ns! + twoDays) / 1_000_000n)]);
      expect(await count()).toBe(spans.length);
      expect(await rowCount(url, 'spans')).toBe(spans.length);
    }
  });

  it('verify: the full check finds spans no summary counts and a conversation whose turns and row disagree', async () => {
    const spans = await benchSpans();
    const { url, store } = await fresh();
    await store.writeSpans(spans);
    expect(await store.verify({ full: false })).toMatchObject({ ok: true, problems: [] });
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
    // Rows written behind the writer's back, as a write that failed after its insert would leave them.
    const ch = await ClickHouse.connect(parseStoreUrl(url));
    try {
      const stray = encodeSpans([{ ...spans[0]!, trace_id: 'e'.repeat(32), span_id: 'e'.repeat(16) }]);
      setVersion(stray.spans, 1);
      await ch.insertRowBinary('spans', SPAN_COLUMNS, [stray.spans]);
      const turn = (await ch.rows<{ conversation_id: string; trace_id: string }>(raw('SELECT conversation_id, trace_id FROM conversation_turns FINAL WHERE deleted = 0 ORDER BY conversation_id, trace_id LIMIT 1')))[0]!;
      await ch.insertJsonEachRow('conversation_turns', JSON.stringify({ project_id: P, ...turn, version: Date.now() * 1000 + 1e9, deleted: 1 }));
      const r = await store.verify({ full: true });
      expect(r.ok).toBe(false);
      expect(r.problems).toEqual([
        `project ${P}: ${spans.length + 1} spans stored, the trace summaries count ${spans.length}`,
        expect.stringMatching(new RegExp(`^project ${P}, conversation ${turn.conversation_id}: (\\d+) turns stored, its summary counts (\\d+)$`)),
      ]);
      expect((await store.verify({ full: false })).ok).toBe(true); // the quick check does not count
    } finally {
      await ch.close();
    }
  });

  it("the writer's look-ups are filled by the summary inserts themselves: each row is the summaries' row, tombstones included", async () => {
    const spans = await benchSpans();
    const { url, store } = await fresh();
    const traces = [...new Set(spans.map((s) => s.trace_id))];
    // One trace outside any conversation (its own rollup unit: loose_spans = 1). The tables each row goes
    // to, as the writer sends them (the connection's method observed, not replaced): the summaries once
    // each, the look-ups never, the bare trace's row in the conversations' insert.
    const sent: string[] = [];
    const insert = ClickHouse.prototype.insertJsonEachRow;
    ClickHouse.prototype.insertJsonEachRow = function (this: ClickHouse, table: string, body: string) {
      if (body) sent.push(table);
      return insert.call(this, table, body);
    };
    try {
      await store.writeSpans(spans.map((s) => (s.trace_id === traces[1] ? { ...s, conversation_id: null } : s)));
    } finally {
      ClickHouse.prototype.insertJsonEachRow = insert;
    }
    expect(sent.filter((t) => t !== 'write_journal' && t !== 'search_input' && t !== 'resources' && t !== 'dirty_days' && t !== 'day_writes').sort()).toEqual(
      // project_days: the day rows, updated by the traces' contributions (trace_days, project-days.ts); rollup_days: the
      // rollups' day layer's empty rows before its recompute (rollup-days.ts).
      ['agent_trace_stats', 'conversation_summaries', 'conversation_turns', 'project_days', 'rollup_days', 'span_rollups', 'trace_days', 'trace_summaries'],
    );
    // A trace moved to another conversation: its old turn gets a tombstone, carrying the trace's days.
    const moved = traces[2]!;
    await store.writeSpans(spans.filter((s) => s.trace_id === moved).map((s) => ({ ...s, conversation_id: 'moved-conversation' })));
    const read = (q: string) => withConnection(url, (ch) => ch.rows<Record<string, unknown>>(raw(`${q} SETTINGS optimize_move_to_prewhere = 0`)));
    const traceCols = 'project_id, trace_id, first_day, last_day, conversation_ids, agent_names, loose_spans, version, deleted';
    const turnCols = `project_id, conversation_id, trace_id, first_day, last_day, turn_start_ns, span_count, error_count, input_tokens, output_tokens,
      usage_spans, cost_usd, last_ns, conversation_name, agent_names, request_models, first_input_ns, first_text, last_output_ns, last_text, version, deleted`;
    const same = async () => {
      const traceKeys = await read(`SELECT ${traceCols} FROM trace_keys FINAL ORDER BY trace_id`);
      expect(traceKeys).toEqual(await read(`SELECT ${traceCols} FROM trace_summaries FINAL ORDER BY trace_id`));
      const convKeys = await read(`SELECT ${turnCols} FROM conversation_keys FINAL ORDER BY conversation_id, trace_id`);
      expect(convKeys).toEqual(await read(`SELECT ${turnCols} FROM conversation_turns FINAL ORDER BY conversation_id, trace_id`));
      return { traceKeys, convKeys };
    };
    const before = await same();
    expect(before.traceKeys.map((r) => r.trace_id)).toEqual([...traces].sort());
    expect(before.traceKeys.filter((r) => r.loose_spans === 1).map((r) => r.trace_id)).toEqual([traces[1]]);
    const old = before.convKeys.filter((r) => r.trace_id === moved && r.conversation_id !== 'moved-conversation');
    expect(old).toMatchObject([{ deleted: 1, first_day: before.traceKeys.find((r) => r.trace_id === moved)!.first_day }]);
    expect(old[0]!.first_day).not.toBe('1970-01-01');
    // A trace deleted: its rows go from both (tombstones purged with its spans').
    await store.deleteSpans({ kind: 'traces', project_id: P, trace_ids: [traces[3]!] });
    expect((await same()).traceKeys.map((r) => r.trace_id)).toEqual(traces.filter((t) => t !== traces[3]).sort());
    expect(await store.verify({ full: true })).toMatchObject({ ok: true, problems: [] });
  });

  it('deleting traces removes their spans and keeps every summary exact', async () => {
    const spans = await benchSpans();
    const traces = [...new Set(spans.map((s) => s.trace_id))];
    const doomed = new Set(traces.filter((_, i) => i % 3 === 0));
    const kept = spans.filter((s) => !doomed.has(s.trace_id));
    const reference = await fresh();
    await reference.store.writeSpans(kept);
    const expected = await snapshot(reference.store);

    const { url, store } = await fresh();
    await store.writeSpans(spans);
    const r = await store.deleteSpans({ kind: 'traces', project_id: P, trace_ids: [...doomed] });
    expect(r).toMatchObject({ deleted_traces: doomed.size, deleted_spans: spans.length - kept.length, projects: [P] });
    expect(await rowCount(url, 'spans')).toBe(kept.length);
    expect(await snapshot(store)).toEqual(expected);
  });

  it('an age cut drops whole days and tombstones the rest, summaries exact', async () => {
    // Traces spread over four days (each moved 0–3 days back), so the cut leaves whole days behind it.
    const DAY = 86_400_000_000_000n;
    const order = [...new Set((await benchSpans()).map((s) => s.trace_id))];
    const spans = (await benchSpans()).map((s) => {
      const back = BigInt(order.indexOf(s.trace_id) % 4) * DAY;
      return { ...s, start_ns: s.start_ns! - back, end_ns: s.end_ns === null ? null : s.end_ns - back };
    });
    const starts = [...new Set(spans.map((s) => s.start_ns))].sort((x, y) => (x < y ? -1 : 1));
    const cut = starts[Math.floor(starts.length / 2)]!;
    const lastStart = new Map<string, bigint>();
    for (const s of spans) if (!lastStart.has(s.trace_id) || s.start_ns > lastStart.get(s.trace_id)!) lastStart.set(s.trace_id, s.start_ns);
    const kept = spans.filter((s) => lastStart.get(s.trace_id)! >= cut);
    const reference = await fresh();
    await reference.store.writeSpans(kept);
    const expected = await snapshot(reference.store);

    const { url, store } = await fresh();
    await store.writeSpans(spans);
    const days = async () => {
      const ch = await ClickHouse.connect(parseStoreUrl(url));
      const r = await ch.rows<{ n: string }>(raw("SELECT uniqExact(partition) AS n FROM system.parts WHERE database = currentDatabase() AND table = 'spans' AND active"));
      await ch.close();
      return Number(r[0]!.n);
    };
    expect(await days()).toBe(4);
    const r = await store.deleteSpans({ kind: 'older_than', project_id: null, before_ns: cut });
    expect(r.deleted_spans).toBe(spans.length - kept.length);
    expect(await rowCount(url, 'spans')).toBe(kept.length);
    expect(await days()).toBeLessThan(4);
    expect(await snapshot(store)).toEqual(expected);
  });
});
