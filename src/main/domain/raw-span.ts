/**
 * A span as received (its OTLP/JSON text, `raw_span_dump`) stored without what its store holds
 * beside it anyway, and put back byte for byte when read. Both adapters store it this way (SQLite in
 * its compressed bodies, ClickHouse in `span_payloads.raw_span`); the rule lives here so neither
 * imports the other.
 *
 * - A message attribute (`gen_ai.input.messages` / `gen_ai.output.messages`) is left out when the
 *   parsed messages kept beside it print back to exactly the same text; reading puts it back. Any
 *   other form stays in the raw span as received, so export → re-import is exact.
 * - Likewise the span's ids and times (`traceId`, `spanId`, `parentSpanId`, start and end), which
 *   its row holds: left out when the raw span prints them exactly as the row stores them, put back
 *   from the row when read (the ids are the least compressible bytes of a span).
 */
import type { SpanMessage } from './span.js';
import { leftOutValue, messagesAttributeText } from './messages-attribute.js';

// ---------------------------------------------------------------- message attributes left out of the raw span

const MESSAGE_ATTRIBUTES = [
  ['gen_ai.input.messages', 'input_messages'],
  ['gen_ai.output.messages', 'output_messages'],
] as const;

const entryHead = (key: string) => `{"key":${JSON.stringify(key)},"value":{"stringValue":`;
const attributeEntry = (key: string, value: string) => `${entryHead(key)}${JSON.stringify(value)}}}`;
const placeholder = (key: string, field: 'input_messages' | 'output_messages') => `{"key":${JSON.stringify(key)},"value":${JSON.stringify(leftOutValue(field))}}`;

/** The raw span without the message attributes its parsed messages reproduce exactly. */
export function stripMessageAttributes(raw: string, messages: { input_messages: readonly SpanMessage[]; output_messages: readonly SpanMessage[] }): string {
  let out = raw;
  for (const [key, field] of MESSAGE_ATTRIBUTES) {
    if (!messages[field].length) continue;
    // The entry's opening first: spans that carry their messages elsewhere skip printing them back
    // (two JSON.stringify). The entry can only start at the opening's first occurrence.
    const first = out.indexOf(entryHead(key));
    if (first < 0) continue;
    const entry = attributeEntry(key, messagesAttributeText(messages[field]));
    // Only when it occurs once, so putting it back is unambiguous. (indexOf, not startsWith, at
    // `first`: it flattens the built entry once; startsWith on it measured slower than two scans.)
    if (out.indexOf(entry, first) === first && out.indexOf(entry, first + 1) < 0) out = out.slice(0, first) + placeholder(key, field) + out.slice(first + entry.length);
  }
  return out;
}

/** The raw span as received, from a stripped one and the stored messages (JSON text of SpanMessage[]). */
export function restoreMessageAttributes(raw: string, stored: { input_messages: string | null; output_messages: string | null }): string {
  let out = raw;
  for (const [key, field] of MESSAGE_ATTRIBUTES) {
    const mark = placeholder(key, field);
    const at = out.indexOf(mark);
    if (at < 0) continue;
    const text = messagesAttributeText(JSON.parse(stored[field] ?? '[]') as SpanMessage[]);
    out = out.slice(0, at) + attributeEntry(key, text) + out.slice(at + mark.length);
  }
  return out;
}

// ---------------------------------------------------------------- ids and times left out of the raw span

/** A span's keys as its light row stores them (times as decimal text: nanoseconds exceed 2^53). */
export interface SpanKeys {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  start_ns: string | null;
  end_ns: string | null;
}

/** The keys of a span as its row stores them. */
export function rawKeys(s: { trace_id: string; span_id: string; parent_span_id: string | null; start_ns: bigint | null; end_ns: bigint | null }): SpanKeys {
  return {
    trace_id: s.trace_id, span_id: s.span_id, parent_span_id: s.parent_span_id,
    start_ns: s.start_ns == null ? null : String(s.start_ns), end_ns: s.end_ns == null ? null : String(s.end_ns),
  };
}

const KEY_FIELDS = [
  ['traceId', 'trace_id'], ['spanId', 'span_id'], ['parentSpanId', 'parent_span_id'],
  ['startTimeUnixNano', 'start_ns'], ['endTimeUnixNano', 'end_ns'],
] as const;

const keyEntry = (name: string, value: string) => `"${name}":${JSON.stringify(value)}`;
const keyMark = (name: string) => `"${name}":{"loupe":0}`;

/** Every `"<key name>":` of KEY_FIELDS in a span's JSON (no two can overlap; none occurs inside a JSON string). */
const KEY_NAME = /"(traceId|spanId|parentSpanId|startTimeUnixNano|endTimeUnixNano)":/g;
const FIELD_OF_KEY = new Map<string, keyof SpanKeys>(KEY_FIELDS);
const MARK_VALUE = '{"loupe":0}';

/**
 * The raw span without the keys it prints exactly as `keys` holds them (each occurring once, and
 * only when no mark is already in the text, so putting them back is unambiguous). One pass over the
 * text finds every key name (per span, this was five scans for marks and up to ten for the entries).
 */
export function stripSpanKeys(raw: string, keys: SpanKeys): string {
  const values = new Map<string, string>();
  const found = new Map<string, number>(); // name → where its entry starts, -1 when it occurs more than once
  KEY_NAME.lastIndex = 0;
  for (let m = KEY_NAME.exec(raw); m; m = KEY_NAME.exec(raw)) {
    const end = m.index + m[0].length;
    if (raw.startsWith(MARK_VALUE, end)) return raw;
    const name = m[1]!;
    let value = values.get(name);
    if (value === undefined) {
      const v = keys[FIELD_OF_KEY.get(name)!];
      values.set(name, (value = v == null ? '' : JSON.stringify(v)));
    }
    if (value && raw.startsWith(value, end)) found.set(name, found.has(name) ? -1 : m.index);
  }
  const cuts = [...found].filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1]);
  if (!cuts.length) return raw;
  let out = '';
  let from = 0;
  for (const [name, at] of cuts) {
    out += raw.slice(from, at) + keyMark(name);
    from = at + name.length + 3 + values.get(name)!.length; // the length of `"<name>":<value>`
  }
  return out + raw.slice(from);
}

/** The raw span as received, from a stripped one and the row's keys. */
export function restoreSpanKeys(raw: string, keys: SpanKeys): string {
  let out = raw;
  for (const [name, field] of KEY_FIELDS) {
    const mark = keyMark(name);
    const at = out.indexOf(mark);
    if (at < 0) continue;
    const value = keys[field];
    if (value == null) throw new Error(`span body left out its ${name}, which the span's row does not hold`);
    out = out.slice(0, at) + keyEntry(name, value) + out.slice(at + mark.length);
  }
  return out;
}

// ---------------------------------------------------------------- the stored form made from the parsed span

const KEY_NAMES = KEY_FIELDS.map(([name]) => name);
/** `"<name>` — the tail of a key whose JSON text ends in `"<name>":` without being the name itself. */
const QUOTED_KEY_NAMES = KEY_NAMES.map((name) => `"${name}`);
const MARK: { loupe: 0 } = { loupe: 0 };
if (KEY_NAMES.some((name) => !name.endsWith('Id') && !name.endsWith('UnixNano'))) throw new Error('stripSpanObject tells key names by their last letter');
const walkStack: unknown[] = [];
const walkDepth: number[] = [];

/**
 * What `stripMessageAttributes(stripSpanKeys(JSON.stringify(span), keys), messages)` gives, made from the
 * parsed span instead of by scanning its text (issue 19 item 3: those scans were ~10 % of the ingest
 * worker), or null when the span nests `maxDepth` levels or deeper (the caller prints it pruned) or a
 * key's only occurrence is not the span's own (its ids under `trace_id`…, a link's `traceId` the same): the
 * caller then prints the span and scans the text. One
 * walk over the span's objects finds what the text scans would find:
 * - `"<key name>":` occurs in the text exactly where an object key is the name or ends with `"<name>`
 *   (no unescaped quote occurs inside a JSON string); a key is left out when its only occurrence
 *   printing the row's value is the span's own, and no occurrence holds a mark already;
 * - a message attribute's entry can only be an object whose `key` is the attribute name: when the span's
 *   own attributes hold the only one, it is left out when it is `{key, value: {stringValue}}` and the
 *   text prints back from the messages; any other case goes through `stripMessageAttributes` itself.
 */
export function stripSpanObject(
  span: Record<string, unknown>,
  keys: SpanKeys,
  messages: { input_messages: readonly SpanMessage[]; output_messages: readonly SpanMessage[] },
  maxDepth: number,
): string | null {
  const values = KEY_FIELDS.map(([, field]) => keys[field]);
  const matches = [0, 0, 0, 0, 0];
  let marked = false;
  const carriers: [unknown[], unknown[]] = [[], []]; // the objects whose `key` is each message attribute's name
  // An explicit stack (a span nested thousands of levels deep cannot overflow the call stack), kept from
  // call to call: the walk allocates nothing per object.
  let top = 1;
  walkStack[0] = span;
  walkDepth[0] = 0;
  while (top > 0) {
    const x = walkStack[--top];
    walkStack[top] = undefined;
    const d = walkDepth[top]!;
    if (typeof x !== 'object' || x === null || ArrayBuffer.isView(x)) continue;
    if (d >= maxDepth) {
      for (let i = 0; i < top; i++) walkStack[i] = undefined;
      return null;
    }
    if (Array.isArray(x)) {
      for (const child of x) {
        if (typeof child !== 'object' || child === null) continue;
        walkStack[top] = child;
        walkDepth[top++] = d + 1;
      }
      continue;
    }
    const o = x as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      const last = k.charCodeAt(k.length - 1);
      if (last === 0x64 /* d: …Id */ || last === 0x6f /* o: …UnixNano */) {
        for (let j = 0; j < KEY_NAMES.length; j++) {
          if (k !== KEY_NAMES[j] && !k.endsWith(QUOTED_KEY_NAMES[j]!)) continue;
          if (typeof v === 'string') {
            if (v === values[j]) matches[j] = matches[j]! + 1;
          } else if (typeof v === 'object' && v !== null && !Array.isArray(v) && JSON.stringify(v) === MARK_VALUE) marked = true;
          break;
        }
      } else if (k === 'key') {
        if (v === MESSAGE_ATTRIBUTES[0][0]) carriers[0].push(o);
        else if (v === MESSAGE_ATTRIBUTES[1][0]) carriers[1].push(o);
      }
      if (typeof v === 'object' && v !== null) {
        walkStack[top] = v;
        walkDepth[top++] = d + 1;
      }
    }
  }
  let out: Record<string, unknown> | null = null;
  if (!marked) {
    for (let j = 0; j < KEY_NAMES.length; j++) {
      const name = KEY_NAMES[j]!;
      if (matches[j] !== 1) continue;
      // The only occurrence is not the span's own (a link's, with the ids under other names): the text scan's.
      if (span[name] !== values[j]) return null;
      (out ??= { ...span })[name] = MARK;
    }
  }
  // Message attributes the walk cannot settle are left to the text scan, on the text made here.
  const byText = { input_messages: [] as readonly SpanMessage[], output_messages: [] as readonly SpanMessage[] };
  let attrs = span.attributes;
  for (let m = 0; m < MESSAGE_ATTRIBUTES.length; m++) {
    const [key, field] = MESSAGE_ATTRIBUTES[m]!;
    const found = carriers[m]!;
    if (!messages[field].length || !found.length) continue;
    const at = found.length === 1 && Array.isArray(span.attributes) ? span.attributes.indexOf(found[0]) : -1;
    if (at < 0) {
      byText[field] = messages[field];
      continue;
    }
    const kv = found[0] as Record<string, unknown>;
    const value = kv.value as Record<string, unknown> | undefined;
    const kvKeys = Object.keys(kv);
    if (kvKeys.length !== 2 || kvKeys[0] !== 'key' || kvKeys[1] !== 'value' || typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const vKeys = Object.keys(value);
    if (vKeys.length !== 1 || vKeys[0] !== 'stringValue' || typeof value.stringValue !== 'string') continue;
    if (value.stringValue !== messagesAttributeText(messages[field])) continue;
    if (attrs === span.attributes) attrs = (span.attributes as unknown[]).slice();
    (attrs as unknown[])[at] = { key, value: leftOutValue(field) };
  }
  if (attrs !== span.attributes) (out ??= { ...span }).attributes = attrs;
  const text = JSON.stringify(out ?? span);
  return byText.input_messages.length || byText.output_messages.length ? stripMessageAttributes(text, byText) : text;
}
