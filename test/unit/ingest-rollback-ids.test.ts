/**
 * A batch the store refuses for one of its spans is rolled back and written again span by span
 * (write-side.ts channelJob, session.ts writeEach). Its first spans may have stored a new resource or
 * compression dictionary before the refusal: the body writer keeps their row ids cached (bodies.ts),
 * and the rollback removes the rows. The spans written again must store those rows again, not refer
 * to ids that no row holds (or that the next new resource or dictionary takes).
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
import type { SpanRecord } from '../../src/main/domain/span.js';
import { generateJsonl } from '../../bench/lib/generate.js';

describe('a refused batch written again span by span', () => {
  it('stores the resource and dictionary rows its spans refer to', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-rollback-ids-'));
    const jsonl = path.join(dir, 'h.jsonl');
    await generateJsonl(jsonl, { conversations: 40, agents: 2, minSpans: 600, seed: 3 });
    // Every span prepared as the ingest worker prepares it (history on: chat inputs continue earlier calls).
    const encoder = spanEncoder('sqlite')!;
    const prepared: { row: unknown; span: SpanRecord }[] = [];
    const session = new ImportSession(
      { prepare: (s) => { const row = encoder.prepare(s); prepared.push({ row, span: s }); return row; }, write: () => {} },
      undefined, undefined, 1_000_000, 'sqlite',
    );
    readFileSync(jsonl, 'utf8').split('\n').forEach((line, i) => {
      if (line.trim()) importJsonLine(session, line, i + 1);
    });
    // A batch of every span but one base: the span continuing it is refused (its base was not stored), after
    // the spans before it stored the import's resource and (past the 256th body) its first dictionary.
    const baseAt = prepared.findIndex((p, i) => i > 300 && prepared.some((q) => q.span.input_continues?.base_span_id === p.span.span_id));
    expect(baseAt).toBeGreaterThan(300);
    const base = prepared[baseAt]!.span;
    const kept = prepared.filter((_, i) => i !== baseAt);
    const refused = kept.filter((p) => p.span.input_continues?.base_span_id === base.span_id && p.span.input_continues.base_trace_id === base.trace_id);
    expect(refused.length).toBeGreaterThan(0);
    const file = path.join(dir, 'loupe.db');
    const side = createWriteSide(openDatabase(file), file);
    const job = side.channelJob();
    job.take({ type: 'batch', batch: encoder.batch(kept.map((p) => p.row)), lines: kept.map((_, i) => i + 1), rawBytes: 0 });
    const totals = job.take({ type: 'end' })!;
    expect(totals.rejected.length).toBeGreaterThanOrEqual(refused.length);
    expect(totals.inserted).toBe(kept.length - totals.rejected.length);
    side.close();

    const db = openDatabase(file, { readonly: true });
    try {
      const dangling = (sql: string) => db.prepare(sql).pluck().get() as number;
      expect(dangling(`SELECT count(*) FROM span_bodies b WHERE NOT EXISTS (SELECT 1 FROM resources r WHERE r.id = b.resource_id)`)).toBe(0);
      expect(dangling(`SELECT count(*) FROM span_bodies b WHERE b.dict_id <> 0 AND NOT EXISTS (SELECT 1 FROM dictionaries d WHERE d.id = b.dict_id)`)).toBe(0);
      // Every stored span reads back whole (its body decodes with its own dictionary, its resource is its own).
      const first = kept[0]!.span;
      const got = db.prepare(`SELECT d.resource_attributes AS r, d.raw_span_dump AS raw FROM spans s JOIN span_details d ON d.span_rowid = s.id WHERE s.trace_id = ? AND s.span_id = ?`).get(first.trace_id, first.span_id) as { r: string; raw: string };
      expect(JSON.parse(got.r)).toEqual(first.resource_attributes);
      expect(db.prepare(`SELECT count(*) FROM span_details WHERE raw_span_dump IS NULL`).pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  }, 60_000);
});
