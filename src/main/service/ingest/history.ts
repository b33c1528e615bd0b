/**
 * Messages repeated from one model call to the next, read once (issue 19 item 3). An agent sends the
 * conversation so far with every call: call n's `gen_ai.input.messages` is call n-1's plus what came
 * after (its answer, tool results, the next question). On the conversation-history workload most of a
 * store's message bytes are such repeats, and every stage of ingest (parse, normalize, serialize,
 * compress, index) scales with bytes.
 *
 * Per import (one ImportSession: a file, an OTLP body), this keeps the last input-messages text of
 * each conversation (per agent) and its parsed messages. A call whose text starts with the previous
 * one's — tested on the raw string, before any JSON.parse — has only its tail parsed and normalized;
 * its messages are the previous call's followed by the tail's. When the store keeps continuations
 * (SQLite, ports `continuesInputs`), the span is stored as "the messages of span B, then these"
 * (`SpanRecord.input_continues`) and its raw form leaves the attribute out (put back when read).
 *
 * Only exact continuations are used: the previous text printed back from its parsed messages must be
 * the text as received (messages-attribute.ts), and so must the tail's, so the raw span read back is
 * the span received. Anything else (other carriers, whitespace between messages, a LangChain batch
 * `[[…]]`, an invalid text) is read whole, as before. The scope is one import: a base is always a span
 * of the same import, parsed (and so written) before the spans that continue it.
 */
import type { InputContinuation, SpanMessage } from '../../domain/span.js';
import { messagesAttributeText } from '../../domain/messages-attribute.js';
import { normalizeMessage, normalizeMessages } from './messages.js';

/**
 * Continuations in a row before a call is stored whole again: reading a continued input walks its
 * bases, so this bounds that walk; a whole copy every this many calls costs little.
 */
export const MAX_CONTINUATION_DEPTH = 32;
/** Conversations remembered per import (least recently continued forgotten first). */
const MAX_SCOPES = 1024;
/**
 * …and at most this many characters of their texts (their parsed messages take about as much again):
 * a conversation's last input grows with the conversation, so a count alone let 1,024 long ones keep
 * ~50 MB alive on the history workload. Agents mostly send one conversation's calls close together,
 * so the conversations still being continued are the recent ones.
 */
const MAX_KEPT_CHARS = 8 << 20;

interface Last {
  raw: string;
  messages: SpanMessage[];
  trace_id: string;
  span_id: string;
  depth: number;
  /** `raw` prints back exactly from `messages` (a continuation of it can leave its attribute out). */
  exact: boolean;
}

/** What reading one input-messages text gave. */
export interface HistoryRead {
  messages: SpanMessage[];
  /** Set when the span's input continues an earlier call's (stored as base + tail). */
  continues: InputContinuation | null;
  /** The text prints back exactly from `messages`: the raw span may leave the attribute out. */
  exact: boolean;
}

export class InputHistory {
  private readonly last = new Map<string, Last>();
  private chars = 0;

  /**
   * The messages of `text` (a `gen_ai.input.messages` value) of span `self`, in `scope` (project,
   * conversation or trace, agent). Remembers it as the scope's last call.
   */
  read(scope: string, text: string, self: { trace_id: string; span_id: string }): HistoryRead {
    const prev = this.last.get(scope);
    let out: HistoryRead | null = prev ? continuation(prev, text, self.trace_id) : null;
    let depth = 0;
    if (out?.continues) depth = prev!.depth + 1;
    out ??= whole(text);
    if (prev) this.forget(scope, prev);
    this.last.set(scope, { raw: text, messages: out.messages, trace_id: self.trace_id, span_id: self.span_id, depth, exact: out.exact });
    this.chars += text.length;
    // The least recently continued first (a Map iterates in insertion order); the newest always stays.
    while (this.last.size > 1 && (this.last.size > MAX_SCOPES || this.chars > MAX_KEPT_CHARS)) {
      const [oldest, kept] = this.last.entries().next().value!;
      this.forget(oldest, kept);
    }
    return out;
  }

  private forget(scope: string, kept: Last): void {
    this.last.delete(scope);
    this.chars -= kept.raw.length;
  }
}

/** A text read whole: parsed, and whether it prints back exactly (a canonical `[{…},…]` list). */
function whole(text: string): HistoryRead {
  const messages = normalizeMessages(text, 'user');
  const exact = messages.length > 0 && text.charCodeAt(0) === 0x5b && text.charCodeAt(1) === 0x7b && messagesAttributeText(messages) === text;
  return { messages, continues: null, exact };
}

/**
 * `text` as a continuation of `prev` when it starts with prev's text (up to its closing bracket)
 * followed by a comma; null when it does not (or is not valid JSON after that point).
 */
function continuation(prev: Last, text: string, traceId: string): HistoryRead | null {
  const n = prev.raw.length;
  // Two slices compared with === (memcmp over the flat strings), not startsWith: V8's startsWith walks
  // the prefix a character at a time, ~4 ns each — 28 µs for a 7 KB history, against 0.8 µs this way.
  if (!prev.exact || text.length <= n || text.charCodeAt(n - 1) !== 0x2c || text.slice(0, n - 1) !== prev.raw.slice(0, -1)) return null;
  const tailText = `[${text.slice(n)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(tailText);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  // Each element read on its own, as normalizeMessages reads the elements of a list of two or more.
  const tail: SpanMessage[] = [];
  for (const m of parsed) {
    const x = normalizeMessage(m, 'user');
    if (x) tail.push(x);
  }
  const messages = prev.messages.concat(tail);
  const exact = messagesAttributeText(tail) === tailText;
  // Past the depth bound the span is stored whole (and later calls continue it).
  if (!exact || prev.depth + 1 >= MAX_CONTINUATION_DEPTH) return { messages, continues: null, exact };
  return {
    messages,
    continues: { base_trace_id: prev.trace_id, base_span_id: prev.span_id, tail, first_in_trace: prev.trace_id !== traceId },
    exact: true,
  };
}
