/**
 * A coding agent's session, played out (issue 17): told only "a tool failed somewhere in the demo
 * data", it finds the conversation, opens the trace of the failing turn and reads the failing span's
 * error — in at most five tool calls, each step taking its ids from what the previous answers said
 * (their text, as a model reads it; the structured content must agree).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, tempDir } from './server-harness.js';
import { call, httpClient, prepareMcpData } from '../helpers/mcp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

let server: RunningLoupe;
beforeAll(async () => {
  const dataDir = tempDir('loupe-mcp-agent-');
  await prepareMcpData(dataDir, { big: false });
  server = await startTestServer({ dataDir, store: undefined });
}, 180_000);
afterAll(async () => server?.close());

it('finds a failing tool call, its conversation, trace and error in at most five tool calls', async () => {
  const c = await httpClient(server.url, '2026-07-28');
  let calls = 0;
  const use = async (name: string, args: Record<string, unknown>) => {
    calls++;
    const a = await call(c, name, args);
    expect(a.isError, `${name}: ${a.text}`).toBe(false);
    return a;
  };
  try {
    // 1. "Something failed": the conversations that had a failure.
    const list = await use('search_conversations', { has_error: true });
    const convId = list.structured.conversations[0].id as string;
    expect(list.text).toContain(convId);

    // 2. Read it: the failing tool call, its turn's trace id and the span id are in the chat.
    const conv = await use('get_conversation', { conversation_id: convId, limit: 20 });
    const turn = conv.structured.turns.find((t: { steps: { kind: string; error: unknown }[] }) => t.steps.some((s) => s.kind === 'tool_call' && s.error));
    expect(turn, 'a turn with a failed tool call').toBeTruthy();
    const failed = turn.steps.find((s: { kind: string; error: unknown }) => s.kind === 'tool_call' && s.error);
    expect(conv.text).toContain(`trace ${turn.trace_id}`);
    expect(conv.text).toContain(`(span ${failed.span_id})`);

    // 3. Open the trace, failures first.
    const tree = await use('get_trace', { trace_id: turn.trace_id, errors_first: true });
    const first = tree.structured.spans[0];
    expect(first).toMatchObject({ status: 'ERROR', span_id: failed.span_id });
    expect(tree.text).toContain(`✗ ${first.name} [${first.span_id}`);

    // 4. Read the failing span's error.
    const span = await use('get_span', { trace_id: turn.trace_id, span_id: first.span_id });
    expect(span.structured.span.status).toBe('ERROR');
    expect(span.structured.span.error_type).toBe(failed.error.type);
    expect(span.structured.span.status_message).toBe(failed.error.message);
    expect(span.text).toContain(`ERROR ${failed.error.type}: ${failed.error.message}`);
  } finally {
    await c.close();
  }
  expect(calls).toBeLessThanOrEqual(5);
});
