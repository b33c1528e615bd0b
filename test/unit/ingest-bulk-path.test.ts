/**
 * The bulk path (write-side.ts channelJob `group`): several batches of a job written in one transaction, the rollup
 * layer recomputed once for them, stores what one transaction per batch stores — every table the same — also when a
 * span of the group is refused (the group rolled back and written again batch by batch).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImportSession } from '../../src/main/service/ingest/session.js';
import { importJsonLine } from '../../src/main/service/ingest/document.js';
import { spanEncoder } from '../../src/main/store/index.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { createWriteSide } from '../../src/main/store/sqlite/write-side.js';
import type { EncodedBatch } from '../../src/main/store/ports.js';
import type { SpanRecord } from '../../src/main/domain/span.js';
import { generateJsonl } from '../../bench/lib/generate.js';

/** Columns that hold the time of the write, not what was written. */
const CLOCK = new Set(['spans.ingested_at_ms', 'schema_migrations.applied_at', 'span_name_stale.since_ms']);

/** Every table's rows (sorted), without the clock columns; FTS5's own table is read through its shadow tables. */
function tables(file: string): Record<string, string[]> {
  const db = openDatabase(file, { readonly: true });
  try {
    const out: Record<string, string[]> = {};
    const names = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'search_text' ORDER BY name`).pluck().all() as string[];
    for (const t of names) {
      const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]).filter((c) => !CLOCK.has(`${t}.${c}`));
      const rows = db.prepare(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${t}"`).raw().all() as unknown[][];
      out[t] = rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? v.toString('base64') : v))).sort();
    }
    return out;
  } finally {
    db.close();
  }
}

/** The history file's spans prepared and packed as the ingest worker does, in batches of 400; `drop`: a span index left out. */
function batchesOf(jsonl: string, drop = -1): { batches: EncodedBatch[]; spans: SpanRecord[] } {
  const encoder = spanEncoder('sqlite')!;
  const spans: SpanRecord[] = [];
  const batches: EncodedBatch[] = [];
  const at = new Map<unknown, number>();
  const session = new ImportSession(
    {
      prepare: (s) => {
        const row = encoder.prepare(s);
        at.set(row, spans.length);
        spans.push(s);
        return row;
      },
      write: (rows) => void batches.push(encoder.batch(rows.filter((r) => at.get(r) !== drop))),
    },
    undefined, undefined, 400, 'sqlite',
  );
  readFileSync(jsonl, 'utf8').split('\n').forEach((line, i) => {
    if (line.trim()) importJsonLine(session, line, i + 1);
  });
  session.flush();
  return { batches, spans };
}

describe('the bulk path', () => {
  it('stores what one transaction per batch stores, a refused span included', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-bulk-'));
    const jsonl = path.join(dir, 'h.jsonl');
    await generateJsonl(jsonl, { conversations: 60, agents: 3, minSpans: 2500, seed: 11 });
    const { spans } = batchesOf(jsonl);
    // A base span whose continuation comes in a later batch of the same group of four: left out, the continuation is refused.
    const base = spans.findIndex((p, i) => i > 500 && spans.some((q, j) => j > i && q.input_continues?.base_span_id === p.span_id && q.input_continues.base_trace_id === p.trace_id));
    expect(base).toBeGreaterThan(500);
    for (const drop of [-1, base]) {
      const results: Record<string, string[]>[] = [];
      // The same packed batches written both ways (the thread's body encoder moves on from call to call).
      const { batches } = batchesOf(jsonl, drop);
      for (const group of [1, 4]) {
        const file = path.join(mkdtempSync(path.join(dir, `g${group}-`)), 'loupe.db');
        const side = createWriteSide(openDatabase(file), file);
        const job = side.channelJob({ group });
        for (const batch of batches) {
          job.take({ type: 'batch', batch, lines: [], rawBytes: 0 });
          side.afterWrite();
        }
        const totals = job.take({ type: 'end' })!;
        side.close();
        expect(totals.inserted).toBe(spans.length - (drop >= 0 ? 1 : 0) - totals.rejected.length);
        expect(totals.rejected.length > 0).toBe(drop >= 0);
        results.push(tables(file));
      }
      expect(Object.keys(results[1]!)).toEqual(Object.keys(results[0]!));
      for (const t of Object.keys(results[0]!)) expect(results[1]![t], t).toEqual(results[0]![t]);
    }
  }, 120_000);
});
