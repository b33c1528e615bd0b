import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBuffer } from '../../src/main/service/ingest/buffer.js';
import { call, tempContext } from './chat-fixture.js';

// Each sample emitter records the same exchange; read back through the trace chat view (issue 3 Done-when).
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const samples = path.resolve(repoRoot, '../shared/data/otlp-samples');
const files = readdirSync(samples).filter((f) => f.endsWith('.json'));

describe('sample traces read back through chat.trace', () => {
  const ctx = tempContext();
  afterAll(() => ctx.store.close());

  it('there are sample files', () => expect(files.length).toBeGreaterThanOrEqual(6));

  it.each(files)('%s: user asks about A-1187, then the assistant calls lookup_order, model named', async (file) => {
    const project = `samples/${file.replace(/\W+/g, '-')}`;
    const report = importBuffer(ctx.store, readFileSync(path.join(samples, file)), { contentType: 'application/json', projectId: project });
    expect(report.spans_imported).toBeGreaterThan(0);
    const doc = JSON.parse(readFileSync(path.join(samples, file), 'utf8')) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const traceIds = [...new Set(doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.traceId.toLowerCase()))))];
    expect(traceIds.length).toBeGreaterThan(0);
    const turns = await Promise.all(traceIds.map((trace_id) => call('chat.trace', { project_id: project, trace_id }, ctx) as Promise<any>));
    const messages = turns.flatMap((t) => t.messages);
    const userIdx = messages.findIndex((m: any) => m.type === 'user_message' && m.user_message.text.includes('Where is order A-1187?'));
    expect(userIdx, JSON.stringify(messages, null, 1)).toBeGreaterThanOrEqual(0);
    const call1 = messages.findIndex(
      (m: any, i: number) => i > userIdx && ((m.type === 'tool_call' && m.tool_call.tool_name === 'lookup_order') ||
        (m.type === 'assistant_message' && m.assistant_message.text.includes('lookup_order'))),
    );
    expect(call1, JSON.stringify(messages, null, 1)).toBeGreaterThan(userIdx);
    const models = messages.filter((m: any) => m.type === 'assistant_message').map((m: any) => m.assistant_message.model);
    expect(models.some((m: string | null) => typeof m === 'string' && m.length > 0), JSON.stringify(messages, null, 1)).toBe(true);
  });
});
