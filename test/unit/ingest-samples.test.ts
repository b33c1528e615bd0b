import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { importFile } from '../../src/main/service/ingest/index.js';
import { EventBus } from '../../src/main/service/events.js';
import type { LoupeEvent } from '../../src/shared/events.js';
import { tempStores, type TestStores } from '../helpers/temp-store.js';
import { samplesDir } from '../helpers/paths.js';
import { openStoreFile } from '../helpers/sqlite.js';

const samples = samplesDir;
const dialects = readdirSync(samples).filter((f) => f.endsWith('.in.json')).map((f) => f.replace(/\.in\.json$/, ''));

const freshStore = tempStores('loupe-ingest-');

type Row = Record<string, unknown>;
function rows(store: TestStores): Row[] {
  const db = openStoreFile(store.file, { readonly: true });
  try {
    return db
      .prepare('SELECT s.*, d.* FROM spans s JOIN span_details d ON d.span_rowid = s.id ORDER BY s.trace_id, s.span_id')
      .all()
      .map((r) => {
        const { id: _id, span_rowid: _rowid, version: _version, ingested_at_ms: _at, ...rest } = r as Row;
        return rest;
      });
  } finally {
    db.close();
  }
}

interface Part { type: string; name?: string; arguments?: unknown; content?: string }
interface Msg { role: string; content: string; parts: Part[] }
const msgs = (r: Row, col: string) => JSON.parse(r[col] as string) as Msg[];

/** The facts every dialect must carry for the sample exchange (issue 2, Done when). */
function expectSampleFacts(all: Row[], label: string): void {
  const userAsked = all.some((r) => msgs(r, 'input_messages').some((m) => m.role === 'user' && m.content === 'Where is order A-1187?'));
  expect(userAsked, `${label}: user question`).toBe(true);

  const toolCall = all
    .flatMap((r) => msgs(r, 'output_messages').flatMap((m) => m.parts))
    .find((p) => p.type === 'tool_call' && p.name === 'lookup_order');
  expect(toolCall?.arguments, `${label}: tool call arguments`).toEqual({ order_id: 'A-1187' });

  const llm = all.find((r) => r.input_tokens === 412);
  expect(llm, `${label}: the model call`).toBeDefined();
  expect(llm!.output_tokens).toBe(27);
  expect(llm!.provider_name).toBe('openai');
  expect(llm!.request_model).toMatch(/^gpt-4o-mini/);
  expect(all.some((r) => r.response_model === 'gpt-4o-mini-2024-07-18'), `${label}: response model`).toBe(true);
  // gpt-4o-mini is in the price table: a cost is known (carried by LiteLLM, computed for the rest).
  expect(llm!.total_cost_usd as number).toBeGreaterThan(0);
  expect(llm!.input_cost_usd as number).toBeGreaterThan(0);
  expect(llm!.output_cost_usd as number).toBeCloseTo(27 * 0.6e-6, 12);
}

describe('importing the shared OTLP samples', () => {
  it.each(dialects)('%s: JSON and protobuf carry the same facts', async (d) => {
    const jsonStore = await freshStore();
    const rep = await importFile(jsonStore.traces, path.join(samples, `${d}.in.json`));
    expect(rep.format).toBe('otlp-json');
    expect(rep.error_count).toBe(0);
    expect(rep.spans_imported).toBeGreaterThan(0);
    const fromJson = rows(jsonStore);
    expectSampleFacts(fromJson, `${d} (json)`);

    const pbStore = await freshStore();
    const pbRep = await importFile(pbStore.traces, path.join(samples, 'protobuf', `${d}.in.pb`));
    expect(pbRep.format).toBe('otlp-proto');
    expect(pbRep.spans_imported).toBe(rep.spans_imported);
    const fromPb = rows(pbStore);
    expectSampleFacts(fromPb, `${d} (protobuf)`);
    // Same normalized columns whichever wire format carried them (the raw dump is each one's own form).
    const strip = (rs: Row[]) => rs.map(({ raw_span_dump, ...r }) => (void raw_span_dump, r));
    expect(strip(fromPb)).toEqual(strip(fromJson));
  });

  it('the collector JSONL imports all six requests; importing it twice leaves the same rows', async () => {
    const store = await freshStore();
    const events = new EventBus();
    const seen: LoupeEvent[] = [];
    events.on((e) => seen.push(e));
    const progress: number[] = [];
    const file = path.join(samples, 'collector-fileexporter-style.jsonl');
    const first = await importFile(store.traces, file, { events, onProgress: (p) => progress.push(p.spans) });
    expect(first).toMatchObject({ format: 'otlp-jsonl', spans_imported: 11, spans_replaced: 0, error_count: 0, projects: ['local/default'] });
    expect(progress.at(-1)).toBe(11);
    expect(seen).toContainEqual({ type: 'data.changed', project_id: 'local/default', tables: ['spans'] });
    const before = rows(store);
    expect(before).toHaveLength(11);
    const second = await importFile(store.traces, file);
    expect(second).toMatchObject({ spans_imported: 0, spans_replaced: 11 });
    expect(rows(store)).toEqual(before);
  });

  it('project: the option wins over svc.project_id, which wins over local/default', async () => {
    const store = await freshStore();
    const rep = await importFile(store.traces, path.join(samples, 'raw.otel-openai-v2.in.json'), { projectId: 'acme/support' });
    expect(rep.projects).toEqual(['acme/support']);
    expect(rows(store).map((r) => r.project_id)).toEqual(['acme/support']);
  });
});
