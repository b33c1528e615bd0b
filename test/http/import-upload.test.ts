/**
 * An uploaded body (what the UI sends on a drop) is imported like a file: import.progress events
 * named by the caller's import_id and the file's own name follow the server's work to `done`, errors
 * name the uploaded file, and a second upload of the same spans reports them as replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoupeEvent } from '../../src/shared/events.js';
import { postJson, samplesDir, startTestServer } from './server-harness.js';

describe('POST /import with an uploaded body', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  const events: LoupeEvent[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    server.ctx.events.on((e) => events.push(e));
  });
  afterAll(() => server?.close());

  it('reports progress under the given import_id to done, then a re-import as replaced', async () => {
    const content = fs.readFileSync(path.join(samplesDir, 'collector-fileexporter-style.jsonl'));
    const body = { content_base64: content.toString('base64'), file_name: 'six.jsonl', project_id: 'up/one', import_id: 'imp-test-1' };
    const first = await postJson(server.url, '/import', body);
    expect(first.status).toBe(200);
    const report = first.body.files[0].report;
    expect(first.body.files[0]).toMatchObject({ file: 'six.jsonl', error: null });
    expect(report.spans_imported).toBeGreaterThan(0);
    expect(report.spans_replaced).toBe(0);
    const mine = events.filter((e): e is Extract<LoupeEvent, { type: 'import.progress' }> => e.type === 'import.progress' && e.import_id === 'imp-test-1');
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine.every((e) => e.file === 'six.jsonl')).toBe(true);
    const last = mine[mine.length - 1]!;
    expect(last).toMatchObject({ done: true, bytes: content.length, total_bytes: content.length, spans: report.spans_imported });

    const again = await postJson(server.url, '/import', { ...body, import_id: 'imp-test-2' });
    expect(again.body.files[0].report).toMatchObject({ spans_imported: 0, spans_replaced: report.spans_imported });
  });

  it('names the uploaded file in a refusal', async () => {
    const res = await postJson(server.url, '/import', { content: 'hello, not traces', file_name: 'notes.txt' });
    expect(res.status).toBe(200);
    expect(res.body.files[0].report).toBeNull();
    expect(res.body.files[0].error).toContain('notes.txt');
  });
});
