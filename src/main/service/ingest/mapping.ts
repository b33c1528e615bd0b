/**
 * THE dialect mapping table: span column → ordered source attribute keys (first present wins).
 * Covers current OTel GenAI, deprecated OTel GenAI, OpenLLMetry (traceloop), OpenInference,
 * Vercel AI SDK (`ai.*`), Pydantic AI / Logfire, Google ADK (`gcp.vertex.agent.*`), the Langfuse
 * SDK (`langfuse.*`) and Loupe's own `svc.*` keys. A source may carry a value mapper (enum
 * renames, `openai.chat` → `openai`, a field of a JSON attribute); a mapper returning null means
 * "try the next source". Messages, tool definitions and events need structure, so they live in
 * messages.ts / extract.ts (docs/ingest.md lists every carrier with a sample).
 */

import { isObj, jsonish } from './lenient.js';

export type Source = string | { key: string; map: (v: unknown) => unknown };

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const table = (t: Record<string, string>) => (v: unknown) => (typeof v === 'string' ? (t[v] ?? t[v.toLowerCase()] ?? null) : null);

/** gen_ai.system values renamed to their gen_ai.provider.name spelling (semantics §3). */
const PROVIDER_RENAMES: Record<string, string> = {
  'az.ai.openai': 'azure.ai.openai',
  vertex_ai: 'gcp.vertex_ai',
  gemini: 'gcp.gemini',
  xai: 'x_ai',
};
export const providerFromSystem = (v: unknown): unknown => {
  if (typeof v !== 'string' || v === '') return null;
  const l = v.toLowerCase();
  return PROVIDER_RENAMES[l] ?? l;
};

/** Vercel: `ai.model.provider` is `openai.chat`, `anthropic.messages`...: the provider is the first part. */
const vercelProvider = (v: unknown) => (typeof v === 'string' && v ? providerFromSystem(v.split('.')[0]) : null);

export const OPERATION_RENAMES: Record<string, string> = {
  'chat.completions': 'chat',
  chat_completions: 'chat',
  completion: 'text_completion',
  embedding: 'embeddings',
  // any-agent's model-call spans (ADK's `call_llm` span name is read in normalize.ts).
  call_llm: 'chat',
};
/** OpenInference `llm.invocation_parameters`: a JSON string of the request parameters. */
const invocation = (k: string) => (v: unknown) => {
  const j = jsonish(v);
  return isObj(j) ? (j[k] ?? null) : null;
};
/** A numeric field of a JSON-object attribute (Langfuse `usage_details` / `cost_details`). */
const jsonField = (...keys: string[]) => (v: unknown) => {
  const j = jsonish(v);
  if (!isObj(j)) return null;
  for (const k of keys) if (j[k] !== undefined && j[k] !== null) return j[k];
  return null;
};
const opName = (v: unknown) => (typeof v === 'string' && v ? (OPERATION_RENAMES[v] ?? v) : null);

const OPENINFERENCE_KINDS: Record<string, string> = {
  llm: 'chat', tool: 'execute_tool', agent: 'invoke_agent', retriever: 'retrieval', embedding: 'embeddings',
  chain: 'chain', reranker: 'rerank', guardrail: 'guardrail', evaluator: 'evaluator',
};
/** Langfuse observation types (`span` and `event` say nothing about the operation). */
const LANGFUSE_TYPES: Record<string, string> = {
  generation: 'chat', agent: 'invoke_agent', tool: 'execute_tool', chain: 'chain', retriever: 'retrieval',
  embedding: 'embeddings', evaluator: 'evaluator', guardrail: 'guardrail',
};
const TRACELOOP_KINDS: Record<string, string> = { agent: 'invoke_agent', tool: 'execute_tool', workflow: 'workflow', task: 'task' };
const LLM_REQUEST_TYPES: Record<string, string> = { chat: 'chat', completion: 'text_completion', embedding: 'embeddings', rerank: 'rerank' };
/** Vercel operation ids: the outer call orchestrates (like an agent), `.do*` spans are the model calls. */
const VERCEL_OPS: Record<string, string> = {
  'ai.generatetext': 'invoke_agent', 'ai.streamtext': 'invoke_agent', 'ai.generateobject': 'invoke_agent', 'ai.streamobject': 'invoke_agent',
  'ai.generatetext.dogenerate': 'chat', 'ai.streamtext.dostream': 'chat', 'ai.generateobject.dogenerate': 'chat',
  'ai.streamobject.dostream': 'chat', 'ai.toolcall': 'execute_tool', 'ai.embed': 'embeddings', 'ai.embedmany': 'embeddings',
  'ai.embed.doembed': 'embeddings', 'ai.embedmany.doembed': 'embeddings',
};

export const MAPPING = {
  operation_name: [
    { key: 'gen_ai.operation.name', map: opName },
    { key: 'openinference.span.kind', map: table(OPENINFERENCE_KINDS) },
    { key: 'traceloop.span.kind', map: table(TRACELOOP_KINDS) },
    { key: 'llm.request.type', map: table(LLM_REQUEST_TYPES) },
    { key: 'ai.operationId', map: table(VERCEL_OPS) },
    { key: 'langfuse.observation.type', map: table(LANGFUSE_TYPES) },
  ],
  provider_name: [
    { key: 'gen_ai.provider.name', map: lower },
    { key: 'gen_ai.system', map: providerFromSystem },
    { key: 'llm.provider', map: providerFromSystem },
    { key: 'llm.system', map: providerFromSystem },
    { key: 'ai.model.provider', map: vercelProvider },
  ],
  agent_id: ['gen_ai.agent.id'],
  agent_name: ['gen_ai.agent.name', 'agent.name', 'agent_name', 'ai.telemetry.functionId'],
  agent_version: ['gen_ai.agent.version'],
  agent_description: ['gen_ai.agent.description'],
  conversation_id: [
    'gen_ai.conversation.id', 'session.id', 'traceloop.association.properties.session_id',
    'traceloop.association.properties.conversation_id', 'ai.telemetry.metadata.sessionId', 'ai.telemetry.metadata.conversationId',
    'langfuse.session.id', 'gcp.vertex.agent.session_id',
  ],
  conversation_name: ['gen_ai.conversation.name'],
  request_model: [
    'gen_ai.request.model', 'llm.request.model', 'ai.model.id', { key: 'llm.invocation_parameters', map: invocation('model') }, 'llm.model_name',
    'langfuse.observation.model.name', 'model_name',
  ],
  response_model: ['gen_ai.response.model', 'ai.response.model', 'llm.response.model', 'llm.model_name', 'langfuse.observation.model.name'],
  response_id: ['gen_ai.response.id', 'ai.response.id'],
  output_type: ['gen_ai.output.type'],
  error_type: ['error.type', 'exception.type'],
  server_address: ['server.address'],
  server_port: ['server.port'],
  tool_name: ['gen_ai.tool.name', 'ai.toolCall.name', 'tool.name'],
  tool_type: ['gen_ai.tool.type'],
  tool_call_id: ['gen_ai.tool.call.id', 'ai.toolCall.id', 'tool_call.id'],
  tool_description: ['gen_ai.tool.description', 'tool.description'],
  tool_call_arguments: ['gen_ai.tool.call.arguments', 'ai.toolCall.args', 'ai.toolCall.input', 'tool_arguments', 'gcp.vertex.agent.tool_call_args', 'gen_ai.tool.args'],
  tool_call_result: ['gen_ai.tool.call.result', 'ai.toolCall.result', 'ai.toolCall.output', 'tool_response', 'gcp.vertex.agent.tool_response'],
  reasoning_content: ['svc.reasoning_content', 'gen_ai.reasoning.content', 'ai.response.reasoningText', 'ai.response.reasoning'],
  compaction_summary: ['svc.compaction.summary'],
  compaction_items_before: ['svc.compaction.items_before'],
  compaction_items_after: ['svc.compaction.items_after'],
  svc_user_id: ['svc.user_id', 'user.id', 'enduser.id', 'langfuse.user.id', 'traceloop.association.properties.user_id', 'ai.telemetry.metadata.userId'],
  svc_run_id: ['svc.run_id'],
  svc_run_step: ['svc.run_step'],
  svc_run_step_end: ['svc.run_step_end'],
  request_temperature: ['gen_ai.request.temperature', 'ai.settings.temperature', { key: 'llm.invocation_parameters', map: invocation('temperature') }],
  request_top_p: ['gen_ai.request.top_p', 'ai.settings.topP', { key: 'llm.invocation_parameters', map: invocation('top_p') }],
  request_frequency_penalty: ['gen_ai.request.frequency_penalty', 'ai.settings.frequencyPenalty'],
  request_presence_penalty: ['gen_ai.request.presence_penalty', 'ai.settings.presencePenalty'],
  request_max_tokens: [
    'gen_ai.request.max_tokens', 'ai.settings.maxOutputTokens', 'ai.settings.maxTokens', { key: 'llm.invocation_parameters', map: invocation('max_tokens') },
  ],
  request_seed: ['gen_ai.request.seed', 'ai.settings.seed'],
  request_choice_count: ['gen_ai.request.choice.count'],
  input_tokens: [
    'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'ai.usage.inputTokens', 'ai.usage.promptTokens',
    // Semantic Kernel's model diagnostics of 2024 (Python and .NET 1.x) put usage under `gen_ai.response.*`.
    'gen_ai.response.prompt_tokens',
    { key: 'langfuse.observation.usage_details', map: jsonField('input', 'prompt_tokens', 'input_tokens') },
  ],
  output_tokens: [
    'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion', 'ai.usage.outputTokens', 'ai.usage.completionTokens',
    'gen_ai.response.completion_tokens',
    { key: 'langfuse.observation.usage_details', map: jsonField('output', 'completion_tokens', 'output_tokens') },
  ],
  reasoning_tokens: ['gen_ai.usage.reasoning_tokens', 'gen_ai.usage.reasoning.output_tokens', 'llm.token_count.completion_details.reasoning', 'ai.usage.reasoningTokens'],
  cache_creation_input_tokens: [
    'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_write.input_tokens', 'gen_ai.usage.cache_creation_input_tokens',
    'llm.token_count.prompt_details.cache_write',
  ],
  cache_read_input_tokens: [
    'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens', 'llm.token_count.prompt_details.cache_read',
    'ai.usage.cachedInputTokens',
  ],
  total_cost_usd: ['gen_ai.usage.cost', 'llm.cost.total', 'gen_ai.cost.total_cost', { key: 'langfuse.observation.cost_details', map: jsonField('total') }],
  input_cost_usd: ['gen_ai.cost.input_cost', 'llm.cost.prompt', { key: 'langfuse.observation.cost_details', map: jsonField('input') }],
  output_cost_usd: ['gen_ai.cost.output_cost', 'llm.cost.completion', { key: 'langfuse.observation.cost_details', map: jsonField('output') }],
  cache_read_cost_usd: ['gen_ai.cost.cache_read_cost'],
  cache_creation_cost_usd: ['gen_ai.cost.cache_creation_cost', 'gen_ai.cost.cache_write_cost'],
  finish_reasons: ['gen_ai.response.finish_reasons', 'ai.response.finishReason', 'llm.finish_reason', 'gen_ai.response.finish_reason'],
  request_stop_sequences: ['gen_ai.request.stop_sequences', 'llm.chat.stop_sequences', 'ai.settings.stopSequences'],
  artifact_refs: ['svc.artifact_refs'],
  content_refs: ['svc.content_refs'],
  object_refs: ['svc.object_refs'],
} as const satisfies Record<string, readonly Source[]>;

export type MappedColumn = keyof typeof MAPPING;

/**
 * Keys read by messages.ts / tools.ts (structured sources), plus every key of MAPPING: none of these
 * is copied into the custom attribute maps.
 */
export const STRUCTURED_KEYS = [
  'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions',
  'gen_ai.prompt', 'gen_ai.completion', 'input.value', 'input.mime_type', 'output.value', 'output.mime_type',
  'ai.prompt', 'ai.prompt.messages', 'ai.prompt.tools', 'ai.response.text', 'ai.response.toolCalls', 'ai.response.reasoning',
  'svc.project_id', 'llm.input_messages', 'llm.output_messages',
  'pydantic_ai.all_messages', 'all_messages_events', 'final_result', 'gcp.vertex.agent.llm_request', 'gcp.vertex.agent.llm_response',
  'langfuse.observation.input', 'langfuse.observation.output', 'langfuse.trace.input', 'langfuse.trace.output',
  'traceloop.entity.input', 'traceloop.entity.output',
  'mastra.agent_run.input', 'mastra.agent_run.output', 'mastra.model_step.input', 'mastra.model_step.output',
  'gen_ai.output',
];
/** Indexed (flattened) dialect keys consumed by messages.ts / tools.ts, matched by prefix. */
export const CONSUMED_PREFIXES = [
  'gen_ai.prompt.', 'gen_ai.completion.', 'llm.input_messages.', 'llm.output_messages.', 'llm.tools.', 'llm.request.functions.',
];
/** Dropped on import: request headers carry credentials. */
export const DROPPED_PREFIXES = ['ai.request.headers.'];

const MAPPED_KEYS = new Set<string>([...Object.values(MAPPING).flatMap((srcs) => srcs.map((s) => (typeof s === 'string' ? s : s.key))), ...STRUCTURED_KEYS]);

/** True when `key` is read by the mapping (so it is not a custom attribute). */
export function isMappedKey(key: string): boolean {
  if (MAPPED_KEYS.has(key)) return true;
  for (const p of CONSUMED_PREFIXES) if (key.startsWith(p)) return true;
  return false;
}

/** True when some key is a flattened indexed dialect key (so messages.ts must unflatten). */
export function hasIndexedKeys(attrs: Record<string, unknown>): boolean {
  for (const key in attrs) {
    const c = key.charCodeAt(0);
    if (c !== 103 /* g */ && c !== 108 /* l */) continue;
    for (const p of CONSUMED_PREFIXES) if (key.startsWith(p)) return true;
  }
  return false;
}

export const isDroppedKey = (key: string): boolean => DROPPED_PREFIXES.some((p) => key.startsWith(p));

/** Each mapped column's place in what `pickColumns` returns (MAPPING's order). */
export const COLUMN_AT = Object.fromEntries(Object.keys(MAPPING).map((col, i) => [col, i])) as Record<MappedColumn, number>;
const COLUMNS = Object.keys(MAPPING) as MappedColumn[];

/** Source key → the columns it feeds (by place), with its rank in each column's list (lower wins). */
const KEY_INDEX = new Map<string, { at: number; rank: number; map?: (v: unknown) => unknown }[]>();
for (const [col, srcs] of Object.entries(MAPPING) as [MappedColumn, readonly Source[]][]) {
  srcs.forEach((s, rank) => {
    const key = typeof s === 'string' ? s : s.key;
    const list = KEY_INDEX.get(key) ?? [];
    list.push({ at: COLUMN_AT[col], rank, ...(typeof s === 'string' ? {} : { map: s.map }) });
    KEY_INDEX.set(key, list);
  });
}

export type Picked = { [C in MappedColumn]?: unknown };

/**
 * Every mapped column of a span in ONE pass over its attributes (same result as `pick` per
 * column, but a span has ~15 attributes and the table ~150 source keys, so this walks the smaller side).
 * The values by column place (COLUMN_AT), undefined where none: read by constant places, not by column
 * names (a property looked up by a name that varies from call to call went through V8's megamorphic
 * lookups: ~5 % of the ingest worker, issue 19 item 3).
 */
export function pickColumns(attrs: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const rank: number[] = [];
  for (const key in attrs) {
    const feeds = KEY_INDEX.get(key);
    if (feeds === undefined) continue;
    const v = attrs[key];
    if (v === undefined || v === null || v === '') continue;
    for (const f of feeds) {
      const best = rank[f.at];
      if (best !== undefined && best < f.rank) continue;
      const m = f.map ? f.map(v) : v;
      if (m === null || m === undefined) continue;
      out[f.at] = m;
      rank[f.at] = f.rank;
    }
  }
  return out;
}

/** pickColumns by column name (the columns found only). */
export function pickAll(attrs: Record<string, unknown>): Picked {
  const out: Picked = {};
  const at = pickColumns(attrs);
  for (let i = 0; i < COLUMNS.length; i++) if (at[i] !== undefined) out[COLUMNS[i]!] = at[i];
  return out;
}

/** Value of `col` from a flat attribute object: the first source present (and mapped to non-null). */
export function pick(attrs: Record<string, unknown>, col: MappedColumn): unknown {
  for (const s of MAPPING[col] as readonly Source[]) {
    if (typeof s === 'string') {
      const v = attrs[s];
      if (v !== undefined && v !== null && v !== '') return v;
    } else {
      const v = attrs[s.key];
      if (v === undefined || v === null || v === '') continue;
      const m = s.map(v);
      if (m !== null && m !== undefined) return m;
    }
  }
  return null;
}
