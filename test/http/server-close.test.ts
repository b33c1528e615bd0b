/**
 * Closing the server while a request is still being handled: close waits for the handler before the
 * store closes, so the request ends whole (its answer sent) instead of being cut and failing halfway
 * on a closed store ("The database connection is not open" surfaced as an unhandled rejection in a
 * test run). A request arriving while close waits is refused.
 */
import { expect, test } from 'vitest';
import { rawRequest, startTestServer } from './server-harness.js';

test('close() waits for a request in progress (a read in the read pool): it answers 200 whole; a request during close is refused', async () => {
  const s = await startTestServer();
  const span = { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'root', startTimeUnixNano: '1763800000000000000', endTimeUnixNano: '1763800001000000000' };
  const otlp = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });
  expect((await rawRequest(s.port, { method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json' }, body: otlp })).status).toBe(200);
  // Observe (and pass through) the handler's read: it is in a read worker when close() starts.
  const traces = s.ctx.traces;
  let reached!: () => void;
  const inHandler = new Promise<void>((r) => (reached = r));
  const projects = traces.projects;
  traces.projects = (...a) => {
    reached();
    return projects(...a);
  };
  const listing = rawRequest(s.port, { method: 'POST', path: '/app/projects', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(
    (e: NodeJS.ErrnoException) => ({ status: e.code, json: () => null }),
  );
  await inHandler;
  const closed = s.close();
  const during = await rawRequest(s.port, { path: '/v1/health' }).then(
    (r) => r.status,
    (e: NodeJS.ErrnoException) => e.code,
  );
  const res = await listing;
  await closed;
  expect(res.status).toBe(200);
  expect(res.json()).toMatchObject({ projects: [{ project_id: 'local/default', span_count: 1 }] });
  // Refused while closing: 503 from the server, or the connection refused once the listener is gone.
  expect([503, 'ECONNREFUSED']).toContain(during);
}, 60_000);
