/**
 * One walk over the contract of the five query operations (issue 3 Done-when): every field name,
 * default and bound of interface.md — written below as data, copied from its tables — is checked
 * against the zod schemas, and real responses are checked to hold every interface field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contract } from '../../src/shared/contract/index.js';
import { analyticsHandlers } from '../../src/main/service/analytics/handlers.js';
import { agentTurn, call, tempContext } from './chat-fixture.js';

// ---- interface.md, request tables -------------------------------------------------------------
interface Spec { required?: boolean; default?: unknown; min?: number; max?: number; shape?: Shape; items?: Shape }
type Shape = Record<string, Spec>;
const SORT_BY: Spec = { items: { field: {}, direction: {} } };
const VALUE_REF: Spec = { shape: { key: {}, source: {} } };
const GROUP_REF: Shape = { key: {}, alias: {}, source: {} };

const REQUESTS: Record<string, { path: string; min: Record<string, unknown>; fields: Shape }> = {
  'chat.conversation': {
    path: '/agents/conversations/chat',
    min: { project_id: 'p/q', conversation_id: 'c' },
    fields: {
      project_id: { required: true }, conversation_id: { required: true }, include_feedback: { default: false },
      limit: { default: 50, min: 0, max: 50 }, offset: { default: 0, min: 0 },
    },
  },
  'chat.trace': {
    path: '/agents/traces/chat',
    min: { project_id: 'p/q', trace_id: 't' },
    fields: { project_id: { required: true }, trace_id: { required: true }, include_feedback: { default: false } },
  },
  'threads.query': {
    path: '/threads/stream_query',
    min: { project_id: 'p/q' },
    fields: {
      project_id: { required: true }, filter: { shape: { after_datetime: {}, before_datetime: {}, thread_ids: {} } },
      // Bounds/defaults "not shown" in interface.md; semantics §5 decides: 100, 0..10000, offset ≥ 0.
      limit: { default: 100, min: 0, max: 10000 }, offset: { default: 0, min: 0 }, sort_by: SORT_BY,
    },
  },
  'agents.query': {
    path: '/agents/query',
    min: { project_id: 'p/q' },
    fields: {
      project_id: { required: true }, filters: { shape: { agent_name: {} } }, include_costs: { default: false },
      limit: { default: 100, min: 0, max: 10000 }, offset: { default: 0, min: 0 }, sort_by: SORT_BY,
    },
  },
  'spans.query': {
    path: '/agents/spans/query',
    min: { project_id: 'p/q' },
    fields: {
      project_id: { required: true },
      custom_attr_columns: { items: { key: {}, source: {} } },
      group_by: { items: GROUP_REF },
      group_distributions: { items: { alias: {}, value: VALUE_REF, bins: {}, top_n: {} } },
      group_filters: { items: { measure: { shape: { alias: {}, filter: {}, value: {} } }, group_by: { items: GROUP_REF }, max: {}, min: {} } },
      measures: { items: { alias: {}, filter: {}, value: VALUE_REF } },
      query: { shape: { $expr: {} } },
      include_costs: { default: false }, include_details: { default: false },
      limit: { default: 100, min: 0, max: 10000 }, offset: { default: 0, min: 0 },
      sort_by: SORT_BY, started_after: {}, started_before: {},
    },
  },
};

// ---- interface.md, response tables ------------------------------------------------------------
// Type codes: s string, i integer, n number, b boolean, d date-time, e status enum, as array of string,
// m map/object, a array (elements checked by their own table), o object (checked by its own table); '?' nullable.
type Table = Record<string, string>;
const FEEDBACK: Table = {
  id: 's', feedback_type: 's', svc_ref: 's', payload: 'm', creator: 's?', created_at: 'd?', svc_user_id: 's?', runnable_ref: 's?',
  call_ref: 's?', trigger_ref: 's?', annotation_ref: 's?', scorer_tags: 'as', scorer_tag_reasons: 'm', scorer_tag_confidences: 'm',
  scorer_ratings: 'm', scorer_rating_reasons: 'm', scorer_rating_confidences: 'm',
};
const PAYLOADS: Record<string, Table> = {
  user_message: { text: 's', content_refs: 'as' },
  assistant_message: {
    text: 's', model: 's?', reasoning_content: 's?', reasoning_tokens: 'i?', input_tokens: 'i?', output_tokens: 'i?', input_cost_usd: 'n?',
    output_cost_usd: 'n?', total_cost_usd: 'n?', duration_ms: 'i?', status: 'e?', content_refs: 'as',
  },
  tool_call: { tool_name: 's?', tool_arguments: 's?', tool_result: 's?', duration_ms: 'i?', status: 'e?', content_refs: 'as' },
  agent_start: { model: 's?', system_instructions: 's?', tool_definitions: 's?', status: 'e?' },
  agent_handoff: {},
  context_compacted: { compaction_summary: 's?', compaction_items_before: 'i?', compaction_items_after: 'i?' },
};
// Extensions beyond interface.md (issue 10, docs/chat.md): a failed span's error in its bubble; the reserved handoff payload filled in.
const ERROR_EXTENSION: Table = { error_type: 's?', error_message: 's?', error_detail: 's?' };
const PAYLOAD_EXTENSIONS: Record<string, Table> = {
  assistant_message: ERROR_EXTENSION, tool_call: ERROR_EXTENSION, agent_handoff: { from_agent: 's?', to_agent: 's?', text: 's?' },
};
const MESSAGE: Table = {
  type: 'message_type', span_id: 's?', agent_name: 's?', agent_version: 's?', status_code: 'e?', started_at: 'd?',
  user_message: 'o?', assistant_message: 'o?', tool_call: 'o?', agent_start: 'o?', agent_handoff: 'o?', context_compacted: 'o?', feedback: 'a?',
};
const TURN: Table = {
  trace_id: 's', root_span_name: 's?', agent_name: 's?', agent_version: 's?', status_code: 'e?', provider: 's?', started_at: 'd?',
  ended_at: 'd?', svc_user_id: 's?', total_duration_ms: 'i?', total_cost_usd: 'n?', total_input_tokens: 'i', total_output_tokens: 'i',
  total_reasoning_tokens: 'i', total_cache_creation_input_tokens: 'i', total_cache_read_input_tokens: 'i', messages: 'a', feedback: 'a?',
  // Extension (issue 18, decision 0022): whether any span reported token usage.
  usage_known: 'b',
};
const CONVERSATION: Table = {
  conversation_id: 's', turns: 'a', total_turns: 'i', has_more: 'b', limit: 'i', offset: 'i', total_cost_usd: 'n?', feedback: 'a?',
  // Extension (issue 18): the chat header's totals, summed from the same rows as the list row.
  totals: 'o?',
  // Extension (issue 18): the list row's title (shared/titles.ts), null for an unknown conversation.
  title: 's?',
};
const AGENT = ['agent_name', 'error_count', 'first_seen', 'invocation_count', 'last_seen', 'project_id', 'span_count', 'total_duration_ms',
  'total_input_tokens', 'total_output_tokens', 'total_cost_usd'];
/** Extensions of issue 18 (decision 0022) on Agents rows and group rows. */
const AGENT_EXTENSIONS = ['usage_known'];
const GROUP_ROW_EXTENSIONS = ['usage_known', 'wall_duration_ms'];
const SPAN_ROW = [
  'project_id', 'span_id', 'trace_id', 'agent_description', 'agent_id', 'agent_name', 'agent_version', 'compaction_summary', 'conversation_id',
  'conversation_name', 'error_type', 'operation_name', 'output_type', 'parent_span_id', 'provider_name', 'raw_span_dump', 'reasoning_content',
  'request_model', 'response_id', 'response_model', 'server_address', 'status_message', 'tool_call_arguments', 'tool_call_id',
  'tool_call_result', 'tool_definitions', 'tool_description', 'tool_name', 'tool_type', 'svc_run_id', 'svc_user_id',
  'artifact_refs', 'content_refs', 'object_refs', 'finish_reasons', 'request_stop_sequences', 'system_instructions',
  'cache_creation_cost_usd', 'cache_read_cost_usd', 'input_cost_usd', 'output_cost_usd', 'total_cost_usd',
  'request_frequency_penalty', 'request_presence_penalty', 'request_temperature', 'request_top_p',
  'cache_creation_input_tokens', 'cache_read_input_tokens', 'compaction_items_after', 'compaction_items_before', 'input_tokens',
  'output_tokens', 'reasoning_tokens', 'request_choice_count', 'request_max_tokens', 'request_seed', 'server_port', 'svc_run_step',
  'svc_run_step_end', 'started_at', 'ended_at', 'status_code', 'span_kind', 'custom_attrs_bool', 'custom_attrs_float', 'custom_attrs_int',
  'custom_attrs_string', 'input_messages', 'output_messages',
];
/** Fields beyond interface.md that semantics.md adds; anything else extra fails the walk. */
const SPAN_ROW_EXTENSIONS = ['span_name'];
const SPAN_MESSAGE = ['content', 'finish_reason', 'role'];
const GROUP_ROW = [
  'agent_names', 'agent_versions', 'conversation_count', 'conversation_names', 'distributions', 'error_count', 'first_message', 'first_seen',
  'group_keys', 'invocation_count', 'last_message', 'last_seen', 'metrics', 'provider_names', 'request_models', 'span_count',
  'total_cache_creation_input_tokens', 'total_cache_read_input_tokens', 'total_cost_usd', 'total_duration_ms', 'total_input_cost_usd',
  'total_input_tokens', 'total_output_cost_usd', 'total_output_tokens', 'total_reasoning_tokens',
];
const PREVIEW = ['role', 'text'];

// ---- zod walking --------------------------------------------------------------------------------
type Any = z.ZodType;
const def = (s: Any) => (s as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
function unwrap(s: Any): Any {
  for (;;) {
    const d = def(s);
    if (['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(d.type)) s = d.innerType as Any;
    else if (d.type === 'pipe') s = d.in as Any;
    else return s;
  }
}
const shapeOf = (s: Any): Record<string, Any> => {
  const u = unwrap(s);
  expect(def(u).type, 'expected an object schema').toBe('object');
  return def(u).shape as Record<string, Any>;
};
const elementOf = (s: Any): Any => {
  const u = unwrap(s);
  expect(def(u).type, 'expected an array schema').toBe('array');
  return def(u).element as Any;
};
const keysOf = (s: Any) => Object.keys(shapeOf(s)).sort();

function checkNested(s: Any, spec: Spec, where: string) {
  if (spec.shape) {
    const have = Object.keys(shapeOf(s));
    for (const k of Object.keys(spec.shape)) {
      expect(have, `${where}: interface field ${k} missing from the contract`).toContain(k);
      checkNested(shapeOf(s)[k]!, spec.shape[k]!, `${where}.${k}`);
    }
  }
  if (spec.items) checkNested(elementOf(s), { shape: spec.items }, `${where}[]`);
}

const SAMPLE: Record<string, unknown> = { s: 'x', i: 3, n: 1.5, b: true, d: '2026-01-02T03:04:05.123456Z', e: 'OK', as: ['x'], m: {}, a: [], message_type: 'tool_call' };
function checkTable(schema: Any, table: Table, where: string) {
  expect(keysOf(schema), `${where}: keys`).toEqual(Object.keys(table).sort());
  const shape = shapeOf(schema);
  for (const [k, code] of Object.entries(table)) {
    const f = shape[k]!;
    const nullable = code.endsWith('?');
    const base = code.replace('?', '');
    expect(f.safeParse(null).success, `${where}.${k} nullable should be ${nullable}`).toBe(nullable);
    if (base === 'o') continue;
    expect(f.safeParse(SAMPLE[base]).success, `${where}.${k} should accept ${JSON.stringify(SAMPLE[base])}`).toBe(true);
    if (base === 'i') expect(f.safeParse(1.5).success, `${where}.${k} must be an integer`).toBe(false);
    if (base !== 's' && base !== 'd' && base !== 'e' && base !== 'message_type') expect(f.safeParse('x').success, `${where}.${k} is not a string`).toBe(false);
    if (base === 'e') expect(f.safeParse('DONE').success).toBe(false);
  }
}

// ---- the walk -----------------------------------------------------------------------------------
describe('contract walk: requests of the five query operations', () => {
  for (const [name, req] of Object.entries(REQUESTS)) {
    describe(name, () => {
      const op = (contract as Record<string, { method: string; path: string; auth: string; input: Any; output: Any }>)[name]!;
      it('is POST at the interface path, no auth', () => {
        expect(op).toBeDefined();
        expect([op.method, op.path, op.auth]).toEqual(['POST', req.path, 'none']);
      });
      it('has exactly the interface fields; nested objects hold theirs', () => {
        expect(keysOf(op.input)).toEqual(Object.keys(req.fields).sort());
        for (const [k, spec] of Object.entries(req.fields)) checkNested(shapeOf(op.input)[k]!, spec, k);
      });
      it('required fields, defaults, strictness', () => {
        const ok = op.input.safeParse(req.min);
        expect(ok.success, JSON.stringify(ok.error?.issues)).toBe(true);
        const data = ok.data as Record<string, unknown>;
        for (const [k, spec] of Object.entries(req.fields)) {
          if ('default' in spec) expect(data[k], `default of ${k}`).toEqual(spec.default);
          if (spec.required) {
            const { [k]: _drop, ...rest } = req.min;
            const r = op.input.safeParse(rest);
            expect(r.success, `${k} is required`).toBe(false);
            expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(k);
          }
        }
        const extra = op.input.safeParse({ ...req.min, not_in_interface: 1 });
        expect(extra.error?.issues[0]?.code).toBe('unrecognized_keys');
      });
      it('bounds', () => {
        for (const [k, spec] of Object.entries(req.fields)) {
          const at = (v: number) => op.input.safeParse({ ...req.min, [k]: v });
          const failsAt = (v: number) => expect(at(v).error?.issues.map((i) => i.path.join('.')), `${k}=${v} must be refused`).toContain(k);
          if (spec.min !== undefined) {
            expect(at(spec.min).success, `${k}=${spec.min}`).toBe(true);
            failsAt(spec.min - 1);
          }
          if (spec.max !== undefined) {
            expect(at(spec.max).success, `${k}=${spec.max}`).toBe(true);
            failsAt(spec.max + 1);
          } else if (spec.min !== undefined) expect(at(1_000_000).success, `${k} has no upper bound`).toBe(true);
        }
      });
    });
  }
});

describe('contract walk: response shapes', () => {
  const out = (name: string) => (contract as Record<string, { output: Any }>)[name]!.output;
  it('conversation chat → turns → messages → payloads, feedback records', () => {
    const conv = out('chat.conversation');
    checkTable(conv, CONVERSATION, 'ConversationChat');
    const turn = elementOf(shapeOf(conv).turns!);
    checkTable(turn, TURN, 'Turn');
    checkTable(out('chat.trace'), TURN, 'chat.trace');
    checkTable(elementOf(shapeOf(conv).feedback!), FEEDBACK, 'Feedback');
    checkTable(elementOf(shapeOf(turn).feedback!), FEEDBACK, 'Turn.feedback[]');
    const message = elementOf(shapeOf(turn).messages!);
    checkTable(message, MESSAGE, 'Message');
    checkTable(elementOf(shapeOf(message).feedback!), FEEDBACK, 'Message.feedback[]');
    for (const [k, t] of Object.entries(PAYLOADS)) checkTable(shapeOf(message)[k]!, { ...t, ...PAYLOAD_EXTENSIONS[k] }, `payload ${k}`);
    for (const t of ['user_message', 'assistant_message', 'tool_call', 'agent_handoff', 'agent_start', 'context_compacted']) {
      expect(shapeOf(message).type!.safeParse(t).success, t).toBe(true);
    }
    expect(shapeOf(message).type!.safeParse('agent_stop').success).toBe(false);
  });
  it('agents, spans (rows, messages), groups (previews)', () => {
    expect(keysOf(out('agents.query'))).toEqual(['agents', 'total_count']);
    expect(keysOf(elementOf(shapeOf(out('agents.query')).agents!))).toEqual([...AGENT, ...AGENT_EXTENSIONS].sort());
    const spans = out('spans.query');
    // + search_matches (extension): how a `$search` in the request was matched (docs/port.md "Capabilities").
    expect(keysOf(spans)).toEqual(['groups', 'search_matches', 'spans', 'total_count']);
    const row = elementOf(shapeOf(spans).spans!);
    expect(keysOf(row)).toEqual([...SPAN_ROW, ...SPAN_ROW_EXTENSIONS].sort());
    expect(keysOf(elementOf(shapeOf(row).input_messages!))).toEqual(SPAN_MESSAGE);
    expect(keysOf(elementOf(shapeOf(row).output_messages!))).toEqual(SPAN_MESSAGE);
    const group = elementOf(shapeOf(spans).groups!);
    expect(keysOf(group)).toEqual([...GROUP_ROW, ...GROUP_ROW_EXTENSIONS].sort());
    expect(keysOf(shapeOf(group).first_message!)).toEqual(PREVIEW);
    expect(keysOf(shapeOf(group).last_message!)).toEqual(PREVIEW);
  });
});

// ---- real responses -------------------------------------------------------------------------------
/** Every key of the table is present in the object (never undefined). */
function hasAll(obj: unknown, keys: string[], where: string) {
  expect(obj, where).toBeTypeOf('object');
  for (const k of keys) expect(Object.prototype.hasOwnProperty.call(obj, k), `${where} lacks ${k}`).toBe(true);
}

const ctx = await tempContext();

describe('contract walk: real responses hold every interface field', () => {
  afterAll(() => ctx.stores.close());
  const P = 'acme/shop';
  const trace = '1'.repeat(32);
  beforeAll(async () => {
    await ctx.traces.writeSpans(agentTurn({ trace_id: trace, conversation_id: 'c1', start: 0 }).map((s) => ({ ...s, project_id: P, custom_attrs_string: { tier: 'gold' } })));
    await ctx.app.feedback.insert({ project_id: P, target_kind: 'conversation', target_id: 'c1', feedback_type: 'note' });
    await ctx.app.feedback.insert({ project_id: P, target_kind: 'trace', target_id: trace, feedback_type: 'thumbs' });
    for (const s of agentTurn({ trace_id: trace, start: 0 })) await ctx.app.feedback.insert({ project_id: P, target_kind: 'span', target_id: s.span_id, feedback_type: 'rating' });
  });

  const checkTurn = (t: any, where: string) => {
    hasAll(t, Object.keys(TURN), where);
    expect(t.messages.length).toBeGreaterThan(0);
    for (const f of t.feedback) hasAll(f, Object.keys(FEEDBACK), `${where}.feedback[]`);
    for (const m of t.messages) {
      hasAll(m, Object.keys(MESSAGE), `${where}.messages[]`);
      hasAll(m[m.type], Object.keys(PAYLOADS[m.type]!), `${where}.messages[].${m.type}`);
      for (const f of m.feedback) hasAll(f, Object.keys(FEEDBACK), `${where}.messages[].feedback[]`);
    }
  };

  it('chat.conversation and chat.trace', async () => {
    const conv = (await call('chat.conversation', { project_id: P, conversation_id: 'c1', include_feedback: true }, ctx)) as any;
    hasAll(conv, Object.keys(CONVERSATION), 'conversation');
    expect(conv.feedback).toHaveLength(1);
    hasAll(conv.feedback[0], Object.keys(FEEDBACK), 'conversation.feedback[]');
    checkTurn(conv.turns[0], 'turn');
    expect(conv.turns[0].messages.flatMap((m: any) => m.feedback).length).toBeGreaterThan(0);
    expect(contract['chat.conversation'].output.safeParse(conv).success).toBe(true);
    const t = (await call('chat.trace', { project_id: P, trace_id: trace, include_feedback: true }, ctx)) as any;
    checkTurn(t, 'trace');
    expect(contract['chat.trace'].output.safeParse(t).success).toBe(true);
  });

  const analytics = async (name: 'threads.query' | 'agents.query' | 'spans.query', body: Record<string, unknown>) => {
    const input = contract[name].input.parse({ project_id: P, ...body });
    const r = await (analyticsHandlers as unknown as Record<string, (i: unknown, c: typeof ctx, call: object) => unknown>)[name]!(input, ctx, {});
    if (name !== 'threads.query') return r as any;
    const rows: unknown[] = [];
    for await (const x of r as AsyncIterable<unknown>) rows.push(x);
    return rows as any;
  };

  it('agents.query', async () => {
    const r = await analytics('agents.query', { include_costs: true });
    hasAll(r, ['agents', 'total_count'], 'agents.query');
    expect(r.agents.length).toBeGreaterThan(0);
    for (const a of r.agents) hasAll(a, AGENT, 'agent');
  });

  it('spans.query, list and group modes', async () => {
    const list = await analytics('spans.query', { include_details: true, include_costs: true });
    hasAll(list, ['groups', 'spans', 'total_count'], 'spans.query');
    expect(list.spans.length).toBeGreaterThan(0);
    for (const s of list.spans) {
      hasAll(s, SPAN_ROW, 'span row');
      for (const m of [...s.input_messages, ...s.output_messages]) hasAll(m, SPAN_MESSAGE, 'span message');
    }
    const grouped = await analytics('spans.query', { group_by: [{ key: 'conversation_id', source: 'field' }], include_costs: true });
    expect(grouped.groups.length).toBeGreaterThan(0);
    for (const g of grouped.groups) {
      hasAll(g, GROUP_ROW, 'group row');
      hasAll(g.first_message, PREVIEW, 'first_message');
      hasAll(g.last_message, PREVIEW, 'last_message');
    }
  });

  it('threads.query', async () => {
    const rows = await analytics('threads.query', {});
    expect(rows).toHaveLength(1);
    const sortable = ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'];
    hasAll(rows[0], sortable, 'thread');
    for (const field of sortable) await expect(analytics('threads.query', { sort_by: [{ field, direction: 'desc' }] })).resolves.toHaveLength(1);
  });
});
