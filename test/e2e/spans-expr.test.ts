/**
 * The filter builder's `$expr` (src/renderer/src/pages/spans/expr.ts) against the real server: every
 * operator the builder offers is sent to POST /agents/spans/query over the demo spans, and the
 * matching span ids must equal the same condition evaluated here over the unfiltered rows.
 * No browser: this pins the builder ↔ server contract that the explorer relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDemo } from './fixture.js';
import { startLoupe, type RunningLoupe } from '../../src/main/serve.js';
import { textOf } from '../../src/shared/text.js';

// The builder is renderer code (tsconfig.web.json, bundler resolution); the node project cannot list
// it, so it is loaded at run time (vitest transpiles it) and typed here by what the test uses.
interface FilterRow { field: string; op: string; value: string }
interface ExprModule {
  exprFromRows(rows: FilterRow[]): { $expr: Record<string, unknown> } | undefined;
  literalOf(text: string): string | number | boolean;
  parseExprText(text: string): { expr?: unknown; error?: string };
}
const EXPR_MODULE = '../../src/renderer/src/pages/spans/expr.ts';
let exprFromRows: ExprModule['exprFromRows'];
let literalOf: ExprModule['literalOf'];
let parseExprText: ExprModule['parseExprText'];

const PROJECT = 'local/demo';
type Row = Record<string, unknown> & { span_id: string };

describe('filter builder $expr on the real spans query', () => {
  let loupe: RunningLoupe;
  let all: Row[];
  const query = async (extra: Record<string, unknown>) => {
    const res = await fetch(`${loupe.url}/agents/spans/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: PROJECT, limit: 10000, ...extra }) });
    const body = (await res.json()) as { spans: Row[]; detail?: unknown };
    expect(res.status, JSON.stringify(body.detail)).toBe(200);
    return body.spans;
  };
  beforeAll(async () => {
    ({ exprFromRows, literalOf, parseExprText } = (await import(/* @vite-ignore */ EXPR_MODULE)) as ExprModule);
    loupe = await startLoupe({ dataDir: mkdtempSync(join(tmpdir(), 'loupe-expr-')), port: 0, rendererDir: null, log: () => {} });
    await loadDemo(loupe.url);
    all = await query({});
    expect(all.length).toBeGreaterThan(50);
  }, 60_000);
  afterAll(async () => loupe?.close());

  const ids = (rows: Row[]) => rows.map((r) => r.span_id).sort();
  const cases: { row: FilterRow; holds(r: Row): boolean }[] = [
    { row: { field: 'agent_name', op: 'eq', value: 'billing' }, holds: (r) => r.agent_name === 'billing' },
    // ≠ is $not($eq): spans without the field match too (as in MongoDB's $ne), unlike SQL's `<>`.
    { row: { field: 'agent_name', op: 'neq', value: 'billing' }, holds: (r) => r.agent_name !== 'billing' },
    { row: { field: 'gen_ai.agent.name', op: 'eq', value: 'triage' }, holds: (r) => r.agent_name === 'triage' },
    { row: { field: 'output_tokens', op: 'gt', value: '100' }, holds: (r) => typeof r.output_tokens === 'number' && r.output_tokens > 100 },
    { row: { field: 'output_tokens', op: 'lte', value: '100' }, holds: (r) => typeof r.output_tokens === 'number' && r.output_tokens <= 100 },
    { row: { field: 'span_name', op: 'contains', value: 'claude' }, holds: (r) => textOf(r.span_name).includes('claude') },
    { row: { field: 'span_name', op: 'icontains', value: 'CLAUDE' }, holds: (r) => textOf(r.span_name).toLowerCase().includes('claude') },
    { row: { field: 'operation_name', op: 'in', value: 'chat, execute_tool' }, holds: (r) => r.operation_name === 'chat' || r.operation_name === 'execute_tool' },
    { row: { field: 'error_type', op: 'is_null', value: '' }, holds: (r) => r.error_type === null },
    { row: { field: 'error_type', op: 'not_null', value: '' }, holds: (r) => r.error_type !== null },
    { row: { field: 'status_code', op: 'eq', value: 'ERROR' }, holds: (r) => r.status_code === 'ERROR' },
  ];

  it.each(cases.map((c) => [`${c.row.field} ${c.row.op} ${c.row.value}`, c] as const))('%s', async (_, c) => {
    const expected = all.filter(c.holds);
    const got = await query({ query: exprFromRows([c.row]) });
    expect(ids(got)).toEqual(ids(expected));
    // Each case must select something and leave something out, or it proves nothing.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
  });

  it('ANDs several rows and ignores incomplete ones', async () => {
    const rows: FilterRow[] = [
      { field: 'agent_name', op: 'eq', value: 'billing' },
      { field: 'operation_name', op: 'eq', value: 'chat' },
      { field: '', op: 'eq', value: 'x' },
      { field: 'tool_name', op: 'eq', value: '' },
    ];
    const expr = exprFromRows(rows)!;
    expect((expr.$expr.$and as unknown[]).length).toBe(2);
    const got = await query({ query: expr });
    expect(ids(got)).toEqual(ids(all.filter((r) => r.agent_name === 'billing' && r.operation_name === 'chat')));
    expect(exprFromRows([{ field: 'agent_name', op: 'eq', value: '' }])).toBeUndefined();
  });

  it('types literals and explains bad $expr text', () => {
    expect(literalOf('42')).toBe(42);
    expect(literalOf('-1.5')).toBe(-1.5);
    expect(literalOf('true')).toBe(true);
    expect(literalOf('0x10')).toBe('0x10');
    expect(parseExprText('{"$expr": ').error).toMatch(/^Not valid JSON/);
    expect(parseExprText('{"agent_name": "x"}').error).toMatch(/"\$expr" key/);
    expect(parseExprText('  ')).toEqual({});
  });
});
