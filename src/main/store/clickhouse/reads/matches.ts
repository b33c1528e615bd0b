/**
 * Spans whose searchable texts hold a needle, by the rule every adapter applies
 * (domain/search-text.ts: message texts, tool text, string columns and attributes, case-insensitive
 * substring): for `search` and the conversations list's search. ClickHouse 18.16 has no text index,
 * so candidates come from a scan: a case-insensitive substring of the stored texts (columns,
 * attributes, tool text in `spans`; the messages' and instructions' JSON in `span_payloads`, the
 * needle also JSON-escaped). That is a superset — message JSON also holds keys, roles and part types —
 * so each candidate is checked here against its texts, which also gives the snippet.
 */
import type { ReadOptions } from '../../ports.js';
import type { SpanMessage } from '../../../domain/span.js';
import { SEARCHED_COLUMNS, firstMatch, searchTexts, snippetOf, type SearchSource } from '../../../domain/search-text.js';
import type { ClickHouse } from '../connection.js';
import { ident, join, sql, str } from '../sql.js';
import { columnCandidates, payloadCandidates } from '../search-sql.js';
import { FINAL_SETTINGS, currentSpans } from './scope.js';

export type Snippet = NonNullable<ReturnType<typeof snippetOf>>;

/** A matching span (verified), with what the callers order and group it by. */
export interface SpanHit {
  trace_id: string;
  span_id: string;
  conversation_id: string | null;
  start_ns: bigint | null;
}

type CandidateRow = Record<(typeof SEARCHED_COLUMNS)[number], string | null> & {
  trace_id: string; span_id: string; conversation_id: string | null; start_ns: string | null;
  tool_call_arguments: string | null; tool_call_result: string | null; str_keys: string[]; str_values: string[]; payload: number;
};
type PayloadRow = { trace_id: string; span_id: string; system_instructions: string; input_messages: string; output_messages: string };

/** Spans' keys per payload read (an IN list well under the server's 256 KiB query size). */
const CHUNK = 1_000;

const parse = <T>(json: string | null | undefined): T[] => {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

function source(r: CandidateRow, p: PayloadRow | null): SearchSource {
  const custom: Record<string, string> = {};
  r.str_keys.forEach((k, i) => (custom[k] = r.str_values[i] ?? ''));
  const cols = Object.fromEntries(SEARCHED_COLUMNS.map((c) => [c, r[c]])) as Pick<SearchSource, (typeof SEARCHED_COLUMNS)[number]>;
  return {
    ...cols,
    tool_call_arguments: r.tool_call_arguments,
    tool_call_result: r.tool_call_result,
    custom_attrs_string: custom,
    input_messages: parse<SpanMessage>(p?.input_messages),
    output_messages: parse<SpanMessage>(p?.output_messages),
    system_instructions: parse<unknown>(p?.system_instructions),
  };
}

/** The order hits are answered in: newest first (start descending, spans without one last), then trace and span id. */
export function newestFirst(a: SpanHit, b: SpanHit): number {
  if (a.start_ns !== b.start_ns) {
    if (a.start_ns === null) return 1;
    if (b.start_ns === null) return -1;
    return a.start_ns > b.start_ns ? -1 : 1;
  }
  return a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

export interface Matcher {
  /**
   * Matching spans, newest first; at most `limit` of them (the candidates are checked newest first,
   * so a small limit reads few payloads).
   */
  spans(limit?: number): Promise<SpanHit[]>;
  /** The excerpt of a matching span: around the first match in its texts, in the rule's order. */
  snippets(hits: readonly SpanHit[]): Promise<Map<string, Snippet>>;
}

export function matcher(ch: ClickHouse, projectId: string, needle: string, opts: ReadOptions): Matcher {
  const key = (h: { trace_id: string; span_id: string }) => `${h.trace_id}/${h.span_id}`;
  const rows = new Map<string, CandidateRow>();
  const payloads = new Map<string, PayloadRow | null>();

  const readPayloads = async (keys: string[]) => {
    const missing = keys.filter((k) => !payloads.has(k));
    for (let i = 0; i < missing.length; i += CHUNK) {
      const chunk = missing.slice(i, i + CHUNK).map((k) => rows.get(k)!);
      const got = await ch.rows<PayloadRow>(
        sql`SELECT trace_id, span_id, system_instructions, input_messages, output_messages FROM span_payloads FINAL
            WHERE project_id = ${str(projectId)} AND deleted = 0
              AND (trace_id, span_id) IN (${join(chunk.map((r) => sql`(${str(r.trace_id)}, ${str(r.span_id)})`), ', ')})${FINAL_SETTINGS}`,
        opts,
      );
      for (const r of chunk) payloads.set(key(r), null);
      for (const p of got) payloads.set(key(p), p);
    }
  };
  const texts = (k: string) => searchTexts(source(rows.get(k)!, payloads.get(k) ?? null));

  return {
    async spans(limit = Number.POSITIVE_INFINITY) {
      const cols = [...SEARCHED_COLUMNS].map((c) => ident(c));
      const found = await ch.rows<CandidateRow>(
        sql`SELECT trace_id, span_id, conversation_id, start_ns, ${join(cols, ', ')}, tool_call_arguments, tool_call_result, str_keys, str_values,
              (trace_id, span_id) IN (${payloadCandidates(projectId, needle)}) AS payload
            FROM ${currentSpans(sql`project_id = ${str(projectId)} AND deleted = 0 AND (${columnCandidates(needle)}
              OR (trace_id, span_id) IN (${payloadCandidates(projectId, needle)}))`)}
            ORDER BY start_ns DESC NULLS LAST, trace_id, span_id${FINAL_SETTINGS}`,
        opts,
      );
      const hits: SpanHit[] = [];
      // Checked newest first, in chunks: the payloads of a chunk's message candidates are read together.
      for (let i = 0; i < found.length && hits.length < limit; i += CHUNK) {
        const chunk = found.slice(i, i + CHUNK);
        for (const r of chunk) rows.set(key(r), r);
        // A column match needs no payload; a message candidate is checked against its messages.
        const needPayload = chunk.filter((r) => firstMatch(searchTexts(source(r, null)), needle) === null && Number(r.payload)).map(key);
        await readPayloads(needPayload);
        for (const r of chunk) {
          if (firstMatch(texts(key(r)), needle) === null) continue;
          hits.push({ trace_id: r.trace_id, span_id: r.span_id, conversation_id: r.conversation_id, start_ns: r.start_ns === null ? null : BigInt(r.start_ns) });
          if (hits.length >= limit) break;
        }
      }
      return hits;
    },
    async snippets(hits) {
      await readPayloads(hits.map(key).filter((k) => rows.has(k)));
      const out = new Map<string, Snippet>();
      for (const h of hits) {
        const text = firstMatch(texts(key(h)), needle);
        if (text !== null) out.set(key(h), snippetOf(text, needle)!);
      }
      return out;
    },
  };
}
