/**
 * What full-text search (`$search`, `conversations.list`'s `search`) looks at in a span, for every
 * adapter: its message texts (input, output, system instructions: text, reasoning, tool call names
 * and arguments, tool results), the tool call's arguments and result, and every string attribute
 * value (the GenAI columns and the custom string attributes). A span matches when one of these
 * texts contains the query as a case-insensitive substring.
 *
 * The SQLite adapter indexes these texts at ingest (computed on the ingest worker thread) and checks
 * its index's candidates against them again when reading, so index and answer share one definition.
 */
import type { SpanMessage, SpanRecord } from './span.js';
import { textOf } from '../../shared/text.js';

/**
 * The shortest query the conversations list matches against what was said; a shorter one matches
 * only what the list shows of a row (id, name, previews, agents, models) and the answer says so
 * (`search_scope: 'listed_texts'`): a one- or two-letter needle is in nearly every message, and a
 * trigram index cannot look it up.
 */
export const MIN_SEARCH_CHARS = 3;

export const searchScope = (needle: string): 'everything' | 'listed_texts' => ([...needle].length >= MIN_SEARCH_CHARS ? 'everything' : 'listed_texts');

/** String columns of a span that hold attribute values (or the span's own name and status text). */
export const SEARCHED_COLUMNS = [
  'span_name', 'status_message', 'service_name', 'operation_name', 'provider_name', 'agent_id', 'agent_name',
  'agent_description', 'conversation_id', 'conversation_name', 'request_model', 'response_model', 'response_id',
  'error_type', 'tool_name', 'tool_call_id', 'tool_description', 'reasoning_content', 'compaction_summary', 'svc_user_id',
] as const satisfies readonly (keyof SpanRecord)[];

/** The parts of a span search reads, as a span record has them or as a store reads them back. */
export type SearchSource = Pick<SpanRecord, (typeof SEARCHED_COLUMNS)[number] | 'tool_call_arguments' | 'tool_call_result'> & {
  input_messages: readonly SpanMessage[];
  output_messages: readonly SpanMessage[];
  system_instructions: readonly unknown[];
  custom_attrs_string: Readonly<Record<string, string>>;
};

const asText = (v: unknown): string | null =>
  v == null ? null : textOf(v);

/** The searchable texts of messages, in order (the first of searchTexts' texts: a span's input messages). */
export function messageTexts(messages: readonly SpanMessage[], out: string[]): void {
  for (const m of messages) {
    if (!m.parts?.length) {
      if (m.content) out.push(m.content);
      continue;
    }
    // Each field by its own call: an array of the four per part was one allocation a part, on every span ingested.
    for (const p of m.parts) {
      pushText(out, p.content);
      pushText(out, p.name);
      pushText(out, p.arguments);
      pushText(out, p.response);
    }
  }
}

/** `v` as text onto `out` when it has any (asText, then non-empty). */
function pushText(out: string[], v: unknown): void {
  if (v == null) return;
  const t = textOf(v);
  if (t) out.push(t);
}

/**
 * The searchable texts of a span, in a fixed order (messages first: the snippet comes from the first match).
 * `input`: the input messages to read instead of the span's own (the SQLite writer indexes a continued
 * input's tail alone, ingest.ts), so the caller need not copy the span to change them.
 */
export function searchTexts(s: SearchSource, input: readonly SpanMessage[] = s.input_messages): string[] {
  const out: string[] = [];
  messageTexts(input, out);
  messageTexts(s.output_messages, out);
  for (const v of s.system_instructions) {
    const t = typeof v === 'object' && v !== null && 'content' in v ? asText(v.content) : asText(v);
    if (t) out.push(t);
  }
  if (s.tool_call_arguments) out.push(s.tool_call_arguments);
  if (s.tool_call_result) out.push(s.tool_call_result);
  columnTexts(s, out);
  for (const k in s.custom_attrs_string) {
    const v = s.custom_attrs_string[k];
    if (v) out.push(v);
  }
  return out;
}

/**
 * The SEARCHED_COLUMNS values of a span that have text, in that order onto `out`, each read by its own
 * name: a loop over the names read them through V8's megamorphic property lookups, once per column and
 * span ingested. Checked against SEARCHED_COLUMNS when this module loads.
 */
function columnTexts(s: Pick<SearchSource, (typeof SEARCHED_COLUMNS)[number]>, out: string[]): void {
  let v: string | null;
  if ((v = s.span_name)) out.push(v);
  if ((v = s.status_message)) out.push(v);
  if ((v = s.service_name)) out.push(v);
  if ((v = s.operation_name)) out.push(v);
  if ((v = s.provider_name)) out.push(v);
  if ((v = s.agent_id)) out.push(v);
  if ((v = s.agent_name)) out.push(v);
  if ((v = s.agent_description)) out.push(v);
  if ((v = s.conversation_id)) out.push(v);
  if ((v = s.conversation_name)) out.push(v);
  if ((v = s.request_model)) out.push(v);
  if ((v = s.response_model)) out.push(v);
  if ((v = s.response_id)) out.push(v);
  if ((v = s.error_type)) out.push(v);
  if ((v = s.tool_name)) out.push(v);
  if ((v = s.tool_call_id)) out.push(v);
  if ((v = s.tool_description)) out.push(v);
  if ((v = s.reasoning_content)) out.push(v);
  if ((v = s.compaction_summary)) out.push(v);
  if ((v = s.svc_user_id)) out.push(v);
}
{
  const probe = Object.fromEntries(SEARCHED_COLUMNS.map((c) => [c, c])) as unknown as Pick<SearchSource, (typeof SEARCHED_COLUMNS)[number]>;
  const got: string[] = [];
  columnTexts(probe, got);
  if (got.length !== SEARCHED_COLUMNS.length || SEARCHED_COLUMNS.some((c, i) => got[i] !== c)) throw new Error('search-text.ts: columnTexts is out of step with SEARCHED_COLUMNS');
}

/** The first text containing `needle` (case-insensitive), or null. */
export function firstMatch(texts: readonly string[], needle: string): string | null {
  const n = needle.toLowerCase();
  for (const t of texts) if (t.toLowerCase().includes(n)) return t;
  return null;
}

/** Plain-text excerpt around the first case-insensitive match of `needle`, with the match offsets in it. */
export function snippetOf(text: string, needle: string, context = 60): { text: string; matches: [number, number][] } | null {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at < 0) return null;
  const start = Math.max(0, at - context);
  const end = Math.min(text.length, at + needle.length + context);
  const lead = start > 0 ? '…' : '';
  const excerpt = `${lead}${text.slice(start, end).replace(/\s/g, ' ')}${end < text.length ? '…' : ''}`;
  const lower = excerpt.toLowerCase();
  const n = needle.toLowerCase();
  const matches: [number, number][] = [];
  for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) matches.push([i, i + n.length]);
  return { text: excerpt, matches };
}
