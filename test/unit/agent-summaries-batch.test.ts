/**
 * Agent summaries of traces first seen in a batch are computed from the batch's spans, not read back
 * (store/sqlite/summaries/agents.ts, issue 19 item 3). On real SQLite files: every trace's
 * agent_trace_stats rows equal what the read-back path computes from the stored spans (the same
 * query, in its order), the agent summaries equal the sums of those rows, and a trace whose costs
 * add up to different numbers in different orders gets the read's order (span ids in SQLite's byte
 * order), not the order the spans arrived in.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFile } from '../../src/main/service/ingest/index.js';
import { generateJsonl } from '../../bench/lib/generate.js';
import { compareUtf8 } from '../../src/main/domain/utf8-order.js';
import { traceAgentStats, type TraceSpanRow } from '../../src/main/domain/summaries/agent-stats.js';
import { importRequest, traceBuilder } from '../helpers/otlp.js';
import { tempStores } from '../helpers/temp-store.js';
import { openStoreFile } from '../helpers/sqlite.js';
import { AGENT_SUMMARY_SQL } from '../../src/main/store/sqlite/summaries/agents.js';

const P = 'bench/genai';
const newStore = tempStores('loupe-agent-batch-');

/** What the read-back path reads of a trace (summaries/agents.ts readTrace), in its order. */
const READ_TRACE = `SELECT span_id, parent_span_id, agent_name, operation_name, status_code, start_ns, end_ns,
  input_tokens, output_tokens, total_cost_usd, counted FROM spans WHERE project_id = ? AND trace_id = ?`;

const COST_ORDER = [1, 1e16, -1e16];

/** One agent whose three chat spans' costs sum to 0 in span-id order and to 1 in the order they are sent. */
async function costOrderTrace(store: Awaited<ReturnType<typeof newStore>>): Promise<string> {
  const t = traceBuilder({ seed: 'cost-order', start: '2026-12-01T10:00:00Z' });
  const root = t.span('invoke_agent planner', { spanId: '9000000000000000', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' } });
  // Sent in the order c, b, a; span-id order is a (1), b (1e16), c (-1e16).
  for (const [id, cost] of [['c000000000000000', COST_ORDER[2]], ['b000000000000000', COST_ORDER[1]], ['a000000000000000', COST_ORDER[0]]] as const) {
    t.span('chat m', { spanId: id, parent: root, at: 10, durationMs: 50, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.cost': cost, 'gen_ai.usage.input_tokens': 3 } });
  }
  await importRequest(store, P, t.request());
  return t.traceId;
}

describe('agent summaries of new traces from the batch', () => {
  it('equal what reading the stored spans back gives, trace by trace, in the read order', async () => {
    const store = await newStore();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-agent-batch-data-')), 'gen.jsonl');
    await generateJsonl(file, { conversations: 12, agents: 3, minSpans: 600, seed: 7 });
    await importFile(store.traces, file);
    const costTrace = await costOrderTrace(store);
    // The premise: the order matters for this trace's sum.
    expect(COST_ORDER.reduce((a, b) => a + b, 0)).toBe(0);
    expect([...COST_ORDER].reverse().reduce((a, b) => a + b, 0)).toBe(-1e16 + 1e16 + 1);
    // A trace written again (already summarized) takes the read-back path: both paths in one store.
    await importFile(store.traces, file);

    const db = openStoreFile(store.file, { readonly: true });
    try {
      const readTrace = db.prepare(READ_TRACE).safeIntegers(true);
      const stats = db.prepare('SELECT * FROM agent_trace_stats WHERE project_id = ? AND trace_id = ? ORDER BY agent_name').safeIntegers(true);
      const traces = db.prepare('SELECT project_id, trace_id FROM trace_summaries').all() as { project_id: string; trace_id: string }[];
      expect(traces.length).toBeGreaterThan(100);
      let withAgents = 0;
      for (const { project_id, trace_id } of traces) {
        const expected = traceAgentStats(readTrace.all(project_id, trace_id) as TraceSpanRow[])
          .map((s) => ({ ...s, project_id, trace_id }))
          .sort((a, b) => compareUtf8(a.agent_name, b.agent_name));
        const stored = (stats.all(project_id, trace_id) as Record<string, unknown>[]).map((r) => ({
          ...r,
          span_count: Number(r.span_count), invocation_count: Number(r.invocation_count), error_count: Number(r.error_count),
          input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), usage_spans: Number(r.usage_spans),
        }));
        expect(stored, trace_id).toEqual(expected);
        if (expected.length) withAgents++;
      }
      expect(withAgents).toBeGreaterThan(100);
      const planner = db.prepare('SELECT cost_usd FROM agent_trace_stats WHERE trace_id = ? AND agent_name = ?').pluck().get(costTrace, 'planner');
      expect(planner).toBe(0);

      // Each agent's summary is the sum of its traces' rows (REALs to 12 digits: summed in another order).
      const sums = db
        .prepare(
          `SELECT a.project_id, a.agent_name, a.span_count, a.invocation_count, a.error_count, a.input_tokens, a.output_tokens,
                  a.usage_spans, a.first_ns, a.last_ns, ROUND(a.cost_usd, 6) AS cost,
                  SUM(t.span_count) AS t_span_count, SUM(t.invocation_count) AS t_invocation_count, SUM(t.error_count) AS t_error_count,
                  SUM(t.input_tokens) AS t_input_tokens, SUM(t.output_tokens) AS t_output_tokens, SUM(t.usage_spans) AS t_usage_spans,
                  MIN(t.first_ns) AS t_first_ns, MAX(t.last_ns) AS t_last_ns, ROUND(SUM(t.cost_usd), 6) AS t_cost
             FROM agent_summaries a JOIN agent_trace_stats t USING (project_id, agent_name) GROUP BY a.project_id, a.agent_name`,
        )
        .all() as Record<string, unknown>[];
      expect(sums.length).toBeGreaterThanOrEqual(3);
      for (const r of sums) {
        for (const k of ['span_count', 'invocation_count', 'error_count', 'input_tokens', 'output_tokens', 'usage_spans', 'first_ns', 'last_ns', 'cost']) {
          expect(r[k], `${String(r.agent_name)} ${k}`).toEqual(r[`t_${k}`]);
        }
      }

      // The second import rebuilt every agent's row from its per-trace rows (each trace was known): read through
      // the agent index (the planner chose the project's whole primary key), the same rows in the same order (trace
      // id) as that key gives, so every value, the REAL cost included, is exactly the sums over the key's rows.
      expect((db.prepare(`EXPLAIN QUERY PLAN ${AGENT_SUMMARY_SQL.rebuildSummary.replace(/^INSERT[^]*?SELECT/, 'SELECT')}`).all('p', 'a') as { detail: string }[]).map((r) => r.detail).join('\n'))
        .toMatch(/USING INDEX agent_trace_stats_agent \(project_id=\? AND agent_name=\?\)/);
      const byKey = db.prepare(
        `SELECT project_id, agent_name, SUM(span_count), SUM(invocation_count), SUM(error_count), SUM(duration_ns), SUM(input_tokens), SUM(output_tokens),
                SUM(cost_usd), MIN(first_ns), MAX(last_ns), SUM(usage_spans)
           FROM agent_trace_stats NOT INDEXED WHERE project_id = ? AND agent_name = ? GROUP BY project_id, agent_name`,
      ).raw().safeIntegers(true);
      const rows = db.prepare(
        `SELECT project_id, agent_name, span_count, invocation_count, error_count, duration_ns, input_tokens, output_tokens, cost_usd, first_ns, last_ns, usage_spans
           FROM agent_summaries`,
      ).raw().safeIntegers(true).all() as unknown[][];
      expect(rows.length).toBeGreaterThanOrEqual(3);
      for (const r of rows) expect(r, String(r[1])).toEqual(byKey.get(r[0], r[1]));
    } finally {
      db.close();
    }
  });

  it('orders span ids as SQLite does (UTF-8 bytes), past the characters where UTF-16 disagrees and lone surrogates', () => {
    const alphabet = ['a', 'z', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\ud83d\ude00', '\ud800\udc00', '\udbff\udfff', '\ud800', '\udc00'];
    const words: string[] = [''];
    for (const x of alphabet) for (const y of alphabet) words.push(x + y, x);
    let disagree = 0;
    for (const a of words) {
      for (const b of words) {
        const bytes = Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
        expect(Math.sign(compareUtf8(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(bytes);
        if (Math.sign(a < b ? -1 : a > b ? 1 : 0) !== bytes) disagree++;
      }
    }
    // The premise: plain string comparison gets some of these wrong.
    expect(disagree).toBeGreaterThan(0);
  });
});
