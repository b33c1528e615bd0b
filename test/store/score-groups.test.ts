/**
 * The score-group summary behind the Clusters view (domain/score-groups.ts; SQLite migration 0023,
 * ClickHouse 0008), on every adapter: after inserts, replacements (a value crossing the low line, a
 * signature relabelled, a row moved in time), deletes, retention and a project's deletion,
 * `scoreGroups` answers exactly what grouping every score row of the project gives — computed here
 * from `queryScores`, with its own code — for the whole history and for windows with partial days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceStore } from '../../src/main/store/ports.js';
import { scoreIdOf, type ScoreRecord } from '../../src/main/domain/scores.js';
import type { ScoreGroup } from '../../src/main/domain/score-groups.js';
import { ADAPTERS, type OpenedAdapter } from './adapters.js';
import { OTHER, P, T0, fixture, traceIds } from './fixture.js';

const H = 3_600_000_000_000n;
const DAY = 24n * H;
const BASE = (T0 / DAY) * DAY; // a UTC midnight before the fixture

type Spec = Partial<ScoreRecord> & Pick<ScoreRecord, 'name' | 'created_at_ns'>;

/** What grouping the rows gives: per (group, turn) the earliest row; counted, dated and exemplified per group. */
function expected(rows: readonly ScoreRecord[], since: bigint | null, until: bigint | null): ScoreGroup[] {
  const first = new Map<string, { kind: 'signature' | 'low'; key: string; turn: string; trace_id: string | null; at: bigint; agent: string; id: string }>();
  for (const r of rows) {
    const g = r.name === 'failures' ? (r.label == null ? null : { kind: 'signature' as const, key: r.label }) : r.value != null && r.value < 0.5 ? { kind: 'low' as const, key: r.name } : null;
    if (!g) continue;
    const turn = r.trace_id ?? `c:${r.conv_key}`;
    const k = `${g.kind}|${g.key}|${turn}`;
    const was = first.get(k);
    if (!was || r.created_at_ns < was.at || (r.created_at_ns === was.at && r.score_id < was.id)) {
      first.set(k, { ...g, turn, trace_id: r.trace_id, at: r.created_at_ns, agent: r.agent_name ?? '', id: r.score_id });
    }
  }
  const inWindow = [...first.values()].filter((m) => (since == null || m.at >= since) && (until == null || m.at < until));
  const groups = new Map<string, typeof inWindow>();
  for (const m of inWindow) groups.set(`${m.kind}|${m.key}`, [...(groups.get(`${m.kind}|${m.key}`) ?? []), m]);
  return [...groups.values()].map((ms) => {
    const days = new Map<string, number>();
    for (const m of ms) {
      const d = new Date(Number(m.at / 1_000_000n)).toISOString().slice(0, 10);
      days.set(d, (days.get(d) ?? 0) + 1);
    }
    const newest = ms.filter((m) => m.trace_id != null).sort((a, b) => (a.at === b.at ? (a.turn < b.turn ? 1 : -1) : a.at < b.at ? 1 : -1));
    return {
      kind: ms[0]!.kind,
      key: ms[0]!.key,
      count: ms.length,
      first_ns: ms.reduce((a, m) => (m.at < a ? m.at : a), ms[0]!.at),
      last_ns: ms.reduce((a, m) => (m.at > a ? m.at : a), ms[0]!.at),
      agent_names: [...new Set(ms.map((m) => m.agent).filter((a) => a !== ''))].sort(),
      trace_ids: newest.slice(0, 20).map((m) => m.trace_id!),
      days: [...days].sort().map(([day, count]) => ({ day, count })),
    };
  });
}

const sorted = (gs: ScoreGroup[]) => [...gs].sort((a, b) => `${a.kind}|${a.key}`.localeCompare(`${b.kind}|${b.key}`));

describe.each(ADAPTERS)('score groups: $name', (adapter) => {
  const spans = fixture();
  let store: OpenedAdapter;
  let traces: TraceStore;
  /** trace id → conversation and agent, from the fixture's spans. */
  const turns = new Map<string, { project: string; conversation: string | null; agent: string | null }>();

  const row = (project: string, trace: string | null, s: Spec): ScoreRecord => {
    const t = trace ? turns.get(trace)! : null;
    const conversation = s.conversation_id ?? t?.conversation ?? null;
    const target: ScoreRecord['target'] = s.span_id ? 'span' : trace ? 'turn' : 'conversation';
    const base = {
      project_id: project, target, trace_id: trace, span_id: null,
      conversation_id: conversation, conv_key: conversation ?? trace!, agent_name: t?.agent ?? 'support', value: null, label: null,
      value_type: 'number' as const, explanation: null, source: 'human' as const, scorer: null, scorer_version: null, creator: null, correction: null, ...s,
    };
    return { ...base, score_id: scoreIdOf({ ...base, name: base.label && base.name === 'failures' ? `failures|${base.label}` : base.name }) };
  };

  const allRows = async (project: string) => {
    const out: ScoreRecord[] = [];
    let after: { created_at_ns: bigint; score_id: string } | null = null;
    for (;;) {
      const page = await traces.queryScores({ project_id: project, name: null, trace_id: null, conversation_id: null, span_id: null, source: null, conv_keys: null, limit: 1000, after });
      out.push(...page);
      if (page.length < 1000) return out;
      after = page[page.length - 1]!;
    }
  };

  const windows: [bigint | null, bigint | null][] = [
    [null, null],
    [BASE + 10n * H, BASE + 50n * H], // partial first and last day, one whole day between
    [BASE + 30n * H, BASE + 31n * H], // within one day
    [BASE + 23n * H, BASE + 25n * H], // across one midnight
    [BASE + DAY, BASE + 2n * DAY], // one whole day
    [BASE + 2n * DAY, null],
  ];
  const check = async (project = P) => {
    const rows = await allRows(project);
    for (const [since, until] of windows) {
      const got = await traces.scoreGroups({ project_id: project, since_ns: since, until_ns: until, examples: 20 });
      expect(sorted(got), `window ${since}..${until}`).toEqual(sorted(expected(rows, since, until)));
    }
    return rows;
  };

  beforeAll(async () => {
    store = await adapter.open();
    traces = store.traces;
    for (const s of spans) if (s.parent_span_id == null || !turns.has(s.trace_id)) turns.set(s.trace_id, { project: s.project_id, conversation: s.conversation_id, agent: s.agent_name });
    await traces.writeSpans(spans);
  });
  afterAll(() => store.close());

  const mine = () => traceIds(spans.filter((s) => s.project_id === P));

  it('equals the grouping of the score rows after inserts', async () => {
    const rows: ScoreRecord[] = [];
    mine().forEach((t, i) => {
      const at = BASE + BigInt(i) * 7n * H;
      if (i % 3 === 2) rows.push(row(P, t, { name: 'failures', value: 0, created_at_ns: at, source: 'rule', scorer: 'signatures' }));
      else rows.push(row(P, t, { name: 'failures', value: 1, label: i % 3 ? 'tool error · lookup' : 'length cut-off · m', created_at_ns: at, source: 'rule', scorer: 'signatures' }));
      rows.push(row(P, t, { name: 'helpfulness', value: i % 2 ? 0.2 : 0.9, created_at_ns: at + 5n * H, creator: 'ana' }));
      if (i < 4) rows.push(row(P, t, { name: 'helpfulness', value: 0.1, created_at_ns: BASE + BigInt(20 - i) * 3n * H, creator: 'bo', agent_name: 'reviewer-seen' }));
      rows.push(row(P, t, { name: 'tone', label: 'rude', value_type: 'label', created_at_ns: at, creator: 'ana' }));
    });
    const first = spans.find((s) => s.trace_id === mine()[0])!;
    rows.push(row(P, first.trace_id, { name: 'helpfulness', value: 0, span_id: first.span_id, created_at_ns: BASE + H, source: 'rule', scorer: 'x' }));
    for (const [c, v, who] of [['c1', 0, 'ana'], ['c3', 0, 'ana'], ['c2', 0.3, 'ana'], ['c2', 0.3, 'bo']] as const) {
      rows.push(row(P, null, { name: 'satisfaction', value: v, conversation_id: c, created_at_ns: BASE + 40n * H + BigInt(who.length) * H, creator: who }));
    }
    const other = traceIds(spans.filter((s) => s.project_id === OTHER))[0]!;
    rows.push(row(OTHER, other, { name: 'failures', value: 1, label: 'length cut-off · m', created_at_ns: BASE, source: 'rule', scorer: 'signatures' }));
    await traces.writeScores(rows);
    const stored = await check();
    expect(stored.length).toBe(rows.length - 1);
    const got = await traces.scoreGroups({ project_id: P, since_ns: null, until_ns: null, examples: 20 });
    // Two reviewers and a span on one turn count it once; the conversation scores count per conversation.
    expect(got.find((g) => g.key === 'helpfulness')!.count).toBe(mine().filter((_, i) => i % 2 || i < 4).length);
    expect(got.find((g) => g.key === 'satisfaction')!.count).toBe(3);
    expect(got.find((g) => g.key === 'tone')).toBeUndefined();
    await check(OTHER);
  });

  it('stays equal when scores are replaced: a value across the low line, a signature relabelled, a row moved earlier', async () => {
    const ids = mine();
    const rows = [
      row(P, ids[1]!, { name: 'helpfulness', value: 0.95, created_at_ns: BASE + 12n * H, creator: 'ana' }), // was low
      row(P, ids[2]!, { name: 'helpfulness', value: 0.05, created_at_ns: BASE + 19n * H, creator: 'ana' }), // was high
      row(P, ids[3]!, { name: 'helpfulness', value: 0.1, created_at_ns: BASE + 2n * H, creator: 'bo', agent_name: 'reviewer-seen' }), // earlier
    ];
    // The signature of trace 0 is relabelled (same scorer, same id): it leaves one group for another.
    const sig = row(P, ids[0]!, { name: 'failures', value: 1, label: 'length cut-off · m', created_at_ns: BASE, source: 'rule', scorer: 'signatures' });
    rows.push({ ...sig, label: 'error · Boom' });
    await traces.writeScores(rows);
    await check();
  });

  it('stays equal after deletes', async () => {
    const rows = await allRows(P);
    const victims = rows.filter((r) => r.creator === 'bo' || r.span_id != null || (r.name === 'satisfaction' && r.conversation_id === 'c1'));
    expect(victims.length).toBeGreaterThan(3);
    expect(await traces.deleteScores(P, victims.map((r) => r.score_id))).toBe(victims.length);
    await check();
  });

  it('stays equal after retention deletes traces, and a deleted project has no groups', async () => {
    const c1 = traceIds(spans.filter((s) => s.project_id === P && s.conversation_id === 'c1'));
    await traces.deleteSpans({ kind: 'traces', project_id: P, trace_ids: c1 });
    const rows = await check();
    expect(rows.some((r) => r.trace_id != null && c1.includes(r.trace_id))).toBe(false);
    await traces.deleteSpans({ kind: 'project', project_id: OTHER });
    expect(await traces.scoreGroups({ project_id: OTHER, since_ns: null, until_ns: null, examples: 20 })).toEqual([]);
  });
});
