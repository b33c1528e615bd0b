/**
 * A span as received (its OTLP/JSON form, the `raw_span_dump` of a span row) read for people and
 * agents: attributes as key → text, events with their time after the span start, exceptions first.
 * The trace page's span panel and the MCP get_span tool read spans here.
 */
import { textOf } from './text.js';

export interface SpanEvent {
  name: string;
  /** µs after the span's start, when both times are known. */
  offsetUs: number | null;
  attrs: Array<[string, string]>;
}

/** OTLP/JSON span events → name, time after the span start and attributes; exceptions first. */
export function spanEvents(list: unknown, spanStartUs: number | null): SpanEvent[] {
  if (!Array.isArray(list)) return [];
  const out = list.flatMap((e: { name?: unknown; timeUnixNano?: unknown; attributes?: unknown }) => {
    if (!e || typeof e !== 'object') return [];
    const ns = typeof e.timeUnixNano === 'string' || typeof e.timeUnixNano === 'number' ? Number(BigInt(String(e.timeUnixNano)) / 1000n) : null;
    return [{ name: typeof e.name === 'string' ? e.name : '(event)', offsetUs: ns !== null && spanStartUs !== null ? ns - spanStartUs : null, attrs: otlpAttributes(e.attributes) }];
  });
  return out.sort((a, b) => Number(b.name === 'exception') - Number(a.name === 'exception'));
}

/** OTLP/JSON attributes `[{key, value: {stringValue|intValue|...}}]` → [key, text] pairs. */
export function otlpAttributes(list: unknown): Array<[string, string]> {
  if (!Array.isArray(list)) return [];
  return list.flatMap((a: { key?: unknown; value?: unknown }) => (typeof a?.key === 'string' ? [[a.key, anyValue(a.value)] as [string, string]] : []));
}

function anyValue(v: unknown): string {
  if (!v || typeof v !== 'object') return textOf(v);
  const o = v as Record<string, unknown>;
  for (const k of ['stringValue', 'intValue', 'doubleValue', 'boolValue', 'bytesValue']) if (k in o) return String(o[k]);
  if ('arrayValue' in o) return JSON.stringify(((o.arrayValue as { values?: unknown[] })?.values ?? []).map(anyValue));
  if ('kvlistValue' in o) return JSON.stringify(Object.fromEntries(otlpAttributes((o.kvlistValue as { values?: unknown })?.values)));
  return JSON.stringify(v);
}
