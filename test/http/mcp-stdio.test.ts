/**
 * `loupe mcp` over stdio, spawned for real (bin/loupe.js) and driven by the SDK's own Client: on
 * each protocol revision and without a handshake, on a data folder no Loupe serves (it opens the
 * store itself) and on one a Loupe serves (it calls that Loupe: no second writer, no lock fight).
 * In the vitest project `clickhouse` the spans live in ClickHouse (TEST_STORE): the same tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { startTestServer, tempDir, testStoreOption } from './server-harness.js';
import { loupeBin } from '../helpers/spawn-loupe.js';
import { REVISIONS, call, prepareMcpData, stdioClient, type Revision } from '../helpers/mcp.js';

let dataDir: string;
let store: string | undefined;

beforeAll(async () => {
  dataDir = tempDir('loupe-mcp-stdio-');
  store = await testStoreOption();
  await prepareMcpData(dataDir, { big: false, store });
}, 180_000);

const spawnMcp = (rev: Revision, onStderr?: (t: string) => void) =>
  stdioClient(process.execPath, [loupeBin, 'mcp', '--data-dir', dataDir, ...(store ? ['--store', store] : [])], rev, onStderr);

describe('loupe mcp on a folder no Loupe serves', () => {
  it.each(REVISIONS)('%s: finds the failing tool call of the demo data', async (rev) => {
    let stderr = '';
    const c = await spawnMcp(rev, (t) => (stderr += t));
    try {
      expect((await c.listTools()).tools).toHaveLength(16);
      const errors = await call(c, 'recent_errors');
      const refund = errors.structured.groups.find((g: { tool: string | null }) => g.tool === 'issue_refund');
      expect(refund.error_type).toBe('PermissionDenied');
      const span = await call(c, 'get_span', { trace_id: refund.examples[0].trace_id, span_id: refund.examples[0].span_id });
      expect(span.structured.span.status_message).toBe('refunds above $200 need supervisor approval');
      // Writes are the user's own over stdio: the process was started by them and holds the key file.
      const fb = await call(c, 'add_feedback', { target: 'span', id: refund.examples[0].span_id, note: 'needs approval flow' });
      expect(fb.isError).toBe(false);
      expect(stderr).toContain('reading');
    } finally {
      await c.close();
    }
  }, 120_000);
});

describe('loupe mcp beside a running Loupe', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let c: Client;
  let stderr = '';
  beforeAll(async () => {
    server = await startTestServer({ dataDir, store });
    c = await spawnMcp('2025-11-25', (t) => (stderr += t));
  }, 120_000);
  afterAll(async () => {
    await c?.close();
    await server?.close();
  });

  it('calls that Loupe (one writer): its writes are the server\'s, seen at once', async () => {
    expect(stderr).toContain(`tools call the Loupe at ${server.url}`);
    const found = await call(c, 'search_conversations', { query: 'invoice' });
    expect(found.structured.conversations.map((r: { id: string }) => r.id)).toContain('conv-invoice-timeout');
    const fb = await call(c, 'add_feedback', { target: 'conversation', id: 'conv-invoice-timeout', thumbs: 'down' });
    expect(fb.isError).toBe(false);
    const stored = await server.ctx.app.feedback.forTargets('local/demo', 'conversation', ['conv-invoice-timeout']);
    expect(stored.get('conv-invoice-timeout')!.map((f) => f.id)).toContain(fb.structured.feedback.id);
    // Training reads need the key over HTTP: the stdio server sends the folder's.
    expect((await call(c, 'list_training_jobs')).isError).toBe(false);
  });
});
