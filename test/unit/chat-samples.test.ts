import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importBuffer } from '../../src/main/service/ingest/buffer.js';
import { call, tempContext } from './chat-fixture.js';
import { samplesDir } from '../helpers/paths.js';

// Each sample emitter records the same exchange; every file of the samples folder (JSON, protobuf and the
// collector-style JSONL) is read back through the trace chat view (issue 3 Done-when).
const samples = samplesDir;
const jsonFiles = readdirSync(samples).filter((f) => f.endsWith('.json'));
const traceIdsOf = (jsonFile: string) =>
  [...new Set([...readFileSync(path.join(samples, jsonFile), 'utf8').matchAll(/"traceId":"([0-9a-fA-F]{32})"/g)].map((m) => m[1]!.toLowerCase()))];

const cases = [
  ...jsonFiles.map((f) => ({ file: f, contentType: 'application/json', traces: traceIdsOf(f) })),
  ...jsonFiles.map((f) => ({ file: `protobuf/${f.replace(/\.json$/, '.pb')}`, contentType: 'application/x-protobuf', traces: traceIdsOf(f) })),
  { file: 'collector-fileexporter-style.jsonl', contentType: 'application/jsonl', traces: jsonFiles.flatMap(traceIdsOf) },
];

const ctx = await tempContext();

describe('sample traces read back through chat.trace', () => {
  afterAll(() => ctx.stores.close());

  it('covers every sample file', () => {
    const all = [...readdirSync(samples).filter((f) => /\.(json|jsonl)$/.test(f)), ...readdirSync(path.join(samples, 'protobuf')).map((f) => `protobuf/${f}`)];
    expect(cases.map((c) => c.file).sort()).toEqual(all.sort());
    expect(jsonFiles.length).toBeGreaterThanOrEqual(6);
  });

  it.each(cases)('$file: user asks about A-1187, then the assistant calls lookup_order, model named', async ({ file, contentType, traces }) => {
    const project = `samples/${file.replace(/\W+/g, '-')}`;
    const report = await importBuffer(ctx.traces, readFileSync(path.join(samples, file)), { contentType, projectId: project });
    expect(report.spans_imported).toBeGreaterThan(0);
    expect(traces.length).toBeGreaterThan(0);
    for (const trace_id of traces) {
      const turn = (await call('chat.trace', { project_id: project, trace_id }, ctx)) as any;
      const messages = turn.messages;
      const dump = `${file} ${trace_id}: ${JSON.stringify(messages, null, 1)}`;
      const userIdx = messages.findIndex((m: any) => m.type === 'user_message' && m.user_message.text.includes('Where is order A-1187?'));
      expect(userIdx, dump).toBeGreaterThanOrEqual(0);
      const callIdx = messages.findIndex(
        (m: any, i: number) => i > userIdx && ((m.type === 'tool_call' && m.tool_call.tool_name === 'lookup_order') ||
          (m.type === 'assistant_message' && m.assistant_message.text.includes('lookup_order'))),
      );
      expect(callIdx, dump).toBeGreaterThan(userIdx);
      const models = messages.filter((m: any) => m.type === 'assistant_message').map((m: any) => m.assistant_message.model);
      expect(models.some((m: string | null) => typeof m === 'string' && m.length > 0), dump).toBe(true);
    }
  });
});
