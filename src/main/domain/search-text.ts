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
    for (const p of m.parts) {
      for (const v of [p.content, p.name, p.arguments, p.response]) {
        const t = asText(v);
        if (t) out.push(t);
      }
    }
  }
}

/** The searchable texts of a span, in a fixed order (messages first: the snippet comes from the first match). */
export function searchTexts(s: SearchSource): string[] {
  const out: string[] = [];
  messageTexts(s.input_messages, out);
  messageTexts(s.output_messages, out);
  for (const v of s.system_instructions) {
    const t = typeof v === 'object' && v !== null && 'content' in v ? asText(v.content) : asText(v);
    if (t) out.push(t);
  }
  if (s.tool_call_arguments) out.push(s.tool_call_arguments);
  if (s.tool_call_result) out.push(s.tool_call_result);
  for (const c of SEARCHED_COLUMNS) {
    const v = s[c];
    if (v) out.push(v);
  }
  for (const k in s.custom_attrs_string) {
    const v = s.custom_attrs_string[k];
    if (v) out.push(v);
  }
  return out;
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
