/**
 * GenAI log records waiting for their span (service/ingest/log-join.ts) on a real SQLite store: they
 * wait while the span is missing, are joined once it is imported, expire after PENDING_TTL_MS, and at
 * most MAX_PENDING wait (the oldest traces' records go first).
 */
import { describe, expect, it } from 'vitest';
import { tempStores } from '../helpers/temp-store.js';
import { traceBuilder } from '../helpers/otlp.js';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { LogJoiner, MAX_PENDING, PENDING_TTL_MS } from '../../src/main/service/ingest/log-join.js';
import type { LogEvent } from '../../src/main/service/ingest/logs.js';

const freshStore = tempStores('loupe-logjoin-');

const userEvent = (trace_id: string, span_id: string, content: string): LogEvent => ({
  project_id: 'p', trace_id, span_id,
  event: { timeUnixNano: '1', name: 'gen_ai.user.message', attributes: [{ key: 'content', value: { stringValue: content } }] },
});

describe('log records waiting for their span', () => {
  it('wait, join when the span arrives, and expire after the TTL', async () => {
    const store = await freshStore();
    let now = 0;
    const joiner = new LogJoiner(store.traces, undefined, () => now);
    const t = traceBuilder({ seed: 'logjoin-1' });
    t.span('chat gpt-4o', { durationMs: 10, attributes: { 'gen_ai.operation.name': 'chat' } });
    const req = t.request() as any;
    const span = req.resourceSpans[0].scopeSpans[0].spans[0];
    expect(await joiner.receive([userEvent(span.traceId, span.spanId, 'Is it raining?')])).toEqual({ joined: 0, waiting: 1 });
    await importBuffer(store.traces, Buffer.from(JSON.stringify(req)), { contentType: 'application/json', projectId: 'p' });
    expect(await joiner.retryPending()).toEqual({ joined: 1, waiting: 0 });
    const spans = await store.traces.traceSpans('p', span.traceId);
    expect(spans[0]!.input_messages.map((m) => m.content)).toEqual(['Is it raining?']);

    // A record whose span never comes is dropped after the TTL.
    expect((await joiner.receive([userEvent('a'.repeat(32), '1'.repeat(16), 'lost')])).waiting).toBe(1);
    now += PENDING_TTL_MS + 1;
    expect((await joiner.receive([userEvent('b'.repeat(32), '2'.repeat(16), 'newer')])).waiting).toBe(1);
  });

  it('at most MAX_PENDING records wait; the oldest traces\' go first', async () => {
    const store = await freshStore();
    const joiner = new LogJoiner(store.traces, undefined, () => 0);
    const old = Array.from({ length: 10 }, (_, i) => userEvent('c'.repeat(32), (i + 1).toString(16).padStart(16, '0'), `old ${i}`));
    await joiner.receive(old);
    const many = Array.from({ length: MAX_PENDING }, (_, i) => userEvent('d'.repeat(32), (i + 1).toString(16).padStart(16, '0'), `new ${i}`));
    expect((await joiner.receive(many)).waiting).toBe(MAX_PENDING);
  });
});
