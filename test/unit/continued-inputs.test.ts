/**
 * Messages repeated from one model call to the next stored once (issue 19 item 3; migration 0021,
 * service/ingest/history.ts). On the conversation-history workload a SQLite store that keeps a chat
 * span's input as "an earlier call's messages, then these" reads back exactly what a store holding
 * every input whole reads — every span row, every detail column, the raw span as received — and stays
 * so after the bases are deleted or re-imported; its bodies are much smaller, and no chain of bases
 * is longer than the bound.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFile } from '../../src/main/service/ingest/index.js';
import { ImportSession, StoreWriter } from '../../src/main/service/ingest/session.js';
import { importJsonLine } from '../../src/main/service/ingest/document.js';
import { MAX_CONTINUATION_DEPTH } from '../../src/main/service/ingest/history.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';

const freshStore = tempStores('loupe-continued-');

/** Imports the lines of `text` with no message history: every span's input stored whole (the reference). */
async function importWhole(store: TestStores, text: string): Promise<void> {
  const session = new ImportSession(new StoreWriter(store.traces), undefined);
  text.split('\n').forEach((line, i) => {
    if (line.trim()) importJsonLine(session, line, i + 1);
  });
  await session.finish();
}

const DETAIL_COLUMNS = [
  'system_instructions', 'tool_definitions', 'tool_call_arguments', 'tool_call_result', 'input_messages', 'output_messages',
  'resource_attributes', 'events', 'links', 'raw_span_dump',
];

/** Every span as readers see it (its row without the write-time columns, and its details), by key. */
function snapshot(file: string): Map<string, Record<string, unknown>> {
  const db = openStoreFile(file, { readonly: true });
  try {
    const rows = db
      .prepare(`SELECT s.*, ${DETAIL_COLUMNS.map((c) => `d.${c} AS d_${c}`).join(', ')} FROM spans s JOIN span_details d ON d.span_rowid = s.id`)
      .all() as Record<string, unknown>[];
    return new Map(
      rows.map((r) => {
        const { id: _id, ingested_at_ms: _at, ...rest } = r;
        return [`${String(r.project_id)}/${String(r.trace_id)}/${String(r.span_id)}`, rest];
      }),
    );
  } finally {
    db.close();
  }
}

function expectSame(got: TestStores, want: TestStores): void {
  const a = snapshot(got.file);
  const b = snapshot(want.file);
  expect(a.size).toBe(b.size);
  let differing = 0;
  for (const [k, row] of b) {
    const mine = a.get(k);
    expect(mine, k).toBeDefined();
    for (const c of Object.keys(row)) {
      if (mine![c] === row[c]) continue;
      // The first few differences in full, then a count (one assertion per column would flood the output).
      if (differing++ < 3) expect({ span: k, column: c, value: mine![c] }).toEqual({ span: k, column: c, value: row[c] });
    }
  }
  expect(differing).toBe(0);
}

/** Continued bodies, the longest chain of bases and the bodies' bytes. */
function layout(file: string): { continued: number; longest: number; bodyBytes: number; dangling: number } {
  const db = openStoreFile(file, { readonly: true });
  try {
    const continued = db.prepare(`SELECT count(*) FROM span_bodies WHERE input_base IS NOT NULL`).pluck().get() as number;
    const longest = db
      .prepare(
        `WITH RECURSIVE chain(rowid, base, depth) AS (
           SELECT span_rowid, input_base, 0 FROM span_bodies WHERE input_base IS NOT NULL
           UNION ALL SELECT c.rowid, b.input_base, c.depth + 1 FROM chain c JOIN span_bodies b ON b.span_rowid = c.base WHERE b.input_base IS NOT NULL AND c.depth < 1000)
         SELECT IFNULL(max(depth) + 1, 0) FROM chain`,
      )
      .pluck()
      .get() as number;
    const bodyBytes = db.prepare(`SELECT sum(length(body)) FROM span_bodies`).pluck().get() as number;
    const dangling = db
      .prepare(`SELECT count(*) FROM span_bodies c WHERE c.input_base IS NOT NULL AND NOT EXISTS (SELECT 1 FROM span_bodies b WHERE b.span_rowid = c.input_base)`)
      .pluck()
      .get() as number;
    return { continued, longest, bodyBytes, dangling };
  } finally {
    db.close();
  }
}

/** The history workload imported twice: continued inputs kept (`kept`) and every input whole (`whole`). */
async function importedBothWays(): Promise<{ file: string; text: string; kept: TestStores; whole: TestStores }> {
  const { file, text } = await workload();
  const kept = await freshStore();
  const whole = await freshStore();
  await importFile(kept.traces, file);
  await importWhole(whole, text);
  return { file, text, kept, whole };
}

async function workload(): Promise<{ file: string; text: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-continued-gen-'));
  const file = path.join(dir, 'history.jsonl');
  // Long conversations (up to 8 turns of several calls each) so chains reach the depth bound.
  await generateJsonl(file, { conversations: 12, agents: 3, minSpans: 900, seed: 19 });
  return { file, text: readFileSync(file, 'utf8') };
}

describe('continued inputs (messages repeated from one call to the next stored once)', () => {
  it('reads back exactly what whole inputs read, with much smaller bodies and chains within the bound', { timeout: 180_000 }, async () => {
    const { kept, whole } = await importedBothWays();
    expectSame(kept, whole);

    const k = layout(kept.file);
    const w = layout(whole.file);
    expect(w.continued).toBe(0);
    expect(k.continued).toBeGreaterThan(snapshot(kept.file).size / 3);
    expect(k.longest).toBeGreaterThan(1);
    expect(k.longest).toBeLessThanOrEqual(MAX_CONTINUATION_DEPTH);
    expect(k.dangling).toBe(0);
    // Measured 0.62 of the whole bodies on this workload (222 kB against 356 kB).
    expect(k.bodyBytes).toBeLessThan(w.bodyBytes * 0.75);
  });

  it('stays exact when bases are deleted and when spans are re-imported (a base replaced, the same file again)', { timeout: 240_000 }, async () => {
    const { file, text, kept, whole } = await importedBothWays();

    // Every third trace deleted: conversations lose some of their calls, so later calls lose their bases.
    const db = openStoreFile(kept.file, { readonly: true });
    const traces = db.prepare(`SELECT DISTINCT project_id, trace_id FROM spans ORDER BY trace_id`).all() as { project_id: string; trace_id: string }[];
    db.close();
    const doomed = traces.filter((_, i) => i % 3 === 0);
    for (const s of [kept, whole]) {
      for (const p of new Set(doomed.map((t) => t.project_id))) {
        await s.traces.deleteSpans({ kind: 'traces', project_id: p, trace_ids: doomed.filter((t) => t.project_id === p).map((t) => t.trace_id) });
      }
    }
    expect(layout(kept.file).dangling).toBe(0);
    expectSame(kept, whole);

    // A turn re-imported on its own with other messages: the calls of the next turn that continued its
    // last call keep the messages they had (the base hands them over before it is replaced).
    const lines = text.split('\n').filter((l) => l.trim());
    const probe = openStoreFile(kept.file, { readonly: true });
    const baseTrace = probe
      .prepare(
        `SELECT bs.trace_id FROM span_bodies c JOIN spans cs ON cs.id = c.span_rowid JOIN spans bs ON bs.id = c.input_base
         WHERE cs.trace_id <> bs.trace_id ORDER BY cs.id LIMIT 1`,
      )
      .pluck()
      .get() as string;
    probe.close();
    const line = lines.find((l) => l.includes(baseTrace))!;
    // Every message text of that turn changed (the generator's texts are `{"type":"text","content":…}` parts).
    const changed = line.replaceAll('\\"content\\":\\"', '\\"content\\":\\"re-sent: ');
    expect(changed).not.toBe(line);
    const one = path.join(path.dirname(file), 'one.jsonl');
    writeFileSync(one, changed + '\n');
    await importFile(kept.traces, one);
    await importWhole(whole, changed);
    expect(layout(kept.file).dangling).toBe(0);
    expectSame(kept, whole);

    // The whole file again (every span replaced, bases and all).
    await importFile(kept.traces, file);
    await importWhole(whole, text);
    expect(layout(kept.file).dangling).toBe(0);
    expect(layout(kept.file).longest).toBeLessThanOrEqual(MAX_CONTINUATION_DEPTH);
    expectSame(kept, whole);
  });
});
