/**
 * traces.timeline (POST /app/traces/timeline) on a real server and store: every span of the trace in
 * columnar form, the same values `spans.query` gives, start order (open-start spans last, ties by
 * span_id), other traces and projects left out, unknown trace → count 0, bad input → 422 naming the field.
 * Also prints the JSON size against `spans.query` list rows for one 2,000-span trace (measured, not asserted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './server-harness.js';
import { chatAttributes, traceBuilder } from '../helpers/otlp.js';
import type { RunningLoupe } from '../../src/main/serve.js';

const P = 'acme/timeline';
let app: RunningLoupe;

/** Root agent → chat (tokens, cost from the price table) → tool (ERROR) → open span (no end); plus a span with no start. */
function smallTrace() {
  const t = traceBuilder({ seed: 'timeline-small', start: '2026-11-22T10:00:00.000Z' });
  const root = t.span('invoke_agent Support', { durationMs: 3000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Support' } });
  t.span('chat gpt-4o-mini', { parent: root, at: 10.5, durationMs: 800, attributes: chatAttributes({ model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 50 }) });
  t.span('execute_tool lookup', { parent: root, at: 900, durationMs: 50, status: { code: 'ERROR', message: 'boom' }, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } });
  // Two spans starting at the same instant: ordered by span_id.
  t.span('tie b', { parent: root, at: 1000, durationMs: 1, spanId: 'bbbbbbbbbbbbbbbb' });
  t.span('tie a', { parent: root, at: 1000, durationMs: 1, spanId: 'aaaaaaaaaaaaaaaa' });
  t.span('still running', { parent: root, at: 2000, durationMs: null });
  // An orphan: its parent never arrived. The op returns the stored parent id; the waterfall makes it a root.
  t.span('orphan', { parent: 'cccccccccccccccc', at: 2500, durationMs: 10 });
  // A span with no times at all (exporters do send these): listed last, with null times.
  t.spans().push({ traceId: t.traceId, spanId: '0000000000000009', parentSpanId: root.spanId, name: 'no times', kind: 1, attributes: [], status: {} });
  return t;
}

const timeline = (body: unknown) => postJson(app.url, '/app/traces/timeline', body);

describe('traces.timeline', () => {
  const small = smallTrace();
  const other = traceBuilder({ seed: 'timeline-other' });
  beforeAll(async () => {
    app = await startTestServer();
    other.span('other trace', { durationMs: 5 });
    for (const [project, req] of [[P, small.request()], [P, other.request()], ['acme/elsewhere', small.request()]] as const) {
      const r = await fetch(`${app.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': project }, body: JSON.stringify(req) });
      expect(r.status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => app?.close());

  it('gives every span of the trace with the values spans.query has, in start order', async () => {
    const r = await timeline({ project_id: P, trace_id: small.traceId });
    expect(r.status).toBe(200);
    const { columns: c, count, origin, origin_us } = r.body;
    expect(count).toBe(8);
    expect(origin).toBe('2026-11-22T10:00:00.000000Z');
    expect(origin_us).toBe(Date.parse('2026-11-22T10:00:00Z') * 1000);
    for (const k of Object.keys(c)) expect(c[k], k).toHaveLength(8);
    expect(c.span_name).toEqual(['invoke_agent Support', 'chat gpt-4o-mini', 'execute_tool lookup', 'tie a', 'tie b', 'still running', 'orphan', 'no times']);
    expect(c.start_us).toEqual([0, 10_500, 900_000, 1_000_000, 1_000_000, 2_000_000, 2_500_000, null]);
    expect(c.end_us).toEqual([3_000_000, 810_500, 950_000, 1_001_000, 1_001_000, null, 2_510_000, null]);
    expect(c.status_code[2]).toBe('ERROR');
    expect(c.tool_name[2]).toBe('lookup');
    expect(c.agent_name[0]).toBe('Support');
    expect(c.parent_span_id[6]).toBe('cccccccccccccccc');
    expect(c.parent_span_id[0]).toBeNull();

    // Cross-check every field against the list rows of spans.query for the same trace.
    const q = await postJson(app.url, '/agents/spans/query', {
      project_id: P, include_costs: true, limit: 100,
      query: { $expr: { $eq: [{ $getField: 'trace_id' }, { $literal: small.traceId }] } },
    });
    expect(q.status).toBe(200);
    expect(q.body.spans).toHaveLength(8);
    const us = (iso: string | null) => (iso == null ? null : Date.parse(iso) * 1000 + Number(iso.slice(23, 26)) - origin_us);
    for (const row of q.body.spans) {
      const i = c.span_id.indexOf(row.span_id);
      expect(i, row.span_id).toBeGreaterThanOrEqual(0);
      for (const k of ['parent_span_id', 'span_name', 'operation_name', 'agent_name', 'tool_name', 'request_model', 'response_model', 'status_code', 'input_tokens', 'output_tokens', 'total_cost_usd']) {
        expect(c[k][i], `${row.span_name}.${k}`).toEqual(row[k]);
      }
      expect(c.start_us[i]).toBe(us(row.started_at));
      expect(c.end_us[i]).toBe(us(row.ended_at));
    }
    // Every span names its resource's service (the default resource of the test builder).
    expect(new Set(c.service_name)).toEqual(new Set(['test']));
    // The model call is priced at ingest (gpt-4o-mini is in the price table), so the waterfall can show its cost.
    expect(c.input_tokens[1]).toBe(1000);
    expect(c.total_cost_usd[1]).toBeGreaterThan(0);
  });

  it('keeps to one project and one trace; an unknown trace is empty, not an error', async () => {
    const o = await timeline({ project_id: P, trace_id: other.traceId });
    expect(o.body.count).toBe(1);
    expect(o.body.columns.span_name).toEqual(['other trace']);
    const elsewhere = await timeline({ project_id: 'acme/elsewhere', trace_id: small.traceId });
    expect(elsewhere.body.count).toBe(8);
    const none = await timeline({ project_id: P, trace_id: 'f'.repeat(32) });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ count: 0, origin_us: null, origin: null });
    expect(none.body.columns.span_id).toEqual([]);
    const noProject = await timeline({ project_id: 'nobody/here', trace_id: small.traceId });
    expect(noProject.body.count).toBe(0);
  });

  it('refuses bad input with a 422 naming the field', async () => {
    const missing = await timeline({ project_id: P });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'trace_id']);
    const extra = await timeline({ project_id: P, trace_id: small.traceId, limit: 5 });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body.detail)).toContain('limit');
  });

  it('is a fraction of the bytes of spans.query list rows (figures printed)', async () => {
    const big = traceBuilder({ seed: 'timeline-big' });
    const root = big.span('invoke_agent planner', { durationMs: 60_000, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } });
    for (let i = 1; i < 2000; i++) {
      big.span(i % 3 ? 'chat gpt-4o-mini' : 'execute_tool lookup', {
        parent: root, at: i * 20, durationMs: 15,
        attributes: i % 3 ? chatAttributes({ model: 'gpt-4o-mini', inputTokens: 100 + i, outputTokens: 10 }) : { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' },
      });
    }
    const ing = await fetch(`${app.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-project-id': P }, body: JSON.stringify(big.request()) });
    expect(ing.status).toBe(200);
    const sizeOf = async (p: string, body: unknown) => {
      const t = performance.now();
      const res = await fetch(`${app.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      return { bytes: text.length, ms: performance.now() - t, json: JSON.parse(text) };
    };
    const tl = await sizeOf('/app/traces/timeline', { project_id: P, trace_id: big.traceId });
    const list = await sizeOf('/agents/spans/query', { project_id: P, limit: 10_000, query: { $expr: { $eq: [{ $getField: 'trace_id' }, { $literal: big.traceId }] } } });
    expect(tl.json.count).toBe(2000);
    expect(list.json.spans).toHaveLength(2000);
    expect(new Set(tl.json.columns.span_id).size).toBe(2000);
    console.log(`[traces.timeline] 2,000-span trace: ${(tl.bytes / 1e3).toFixed(0)} KB in ${tl.ms.toFixed(0)} ms (${(tl.bytes / 2000).toFixed(0)} B/span); spans.query list rows: ${(list.bytes / 1e3).toFixed(0)} KB in ${list.ms.toFixed(0)} ms (${(list.bytes / 2000).toFixed(0)} B/span)`);
  }, 60_000);
});
