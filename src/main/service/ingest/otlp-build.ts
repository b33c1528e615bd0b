/**
 * Stored spans written back as an OTLP/JSON trace request: `POST /export` builds its lines with it, and
 * log-join.ts re-imports spans that log records added events to. Spans are grouped by resource and
 * scope (spans of one resource carry the same resource text, ExportSpan).
 */
import type { ExportSpan } from '../../store/ports.js';

type KeyValue = { key: string; value: Record<string, unknown> };

/** Resource attributes are stored as a flat JSON map; OTLP wants KeyValue/AnyValue lists. */
function toAnyValue(v: unknown): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(toAnyValue) } };
  if (v && typeof v === 'object') return { kvlistValue: { values: toKeyValues(v as Record<string, unknown>) } };
  return {};
}
const toKeyValues = (m: Record<string, unknown>): KeyValue[] => Object.entries(m).map(([key, v]) => ({ key, value: toAnyValue(v) }));

/** `resourceSpans` of the spans; `rawOf` gives each span's OTLP/JSON object (default: its raw_span parsed). */
export function resourceSpansOf(spans: Iterable<ExportSpan>, rawOf: (s: ExportSpan) => unknown = (s) => JSON.parse(s.raw_span)): unknown[] {
  const groups = new Map<string, { resource: string; scope: { name: string; version?: string }; spans: unknown[] }>();
  for (const s of spans) {
    const key = `${s.resource_attributes}\u0000${s.scope_name ?? ''}\u0000${s.scope_version ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { resource: s.resource_attributes, scope: { name: s.scope_name ?? '', ...(s.scope_version ? { version: s.scope_version } : {}) }, spans: [] }));
    g.spans.push(rawOf(s));
  }
  return [...groups.values()].map((g) => ({
    resource: { attributes: toKeyValues(JSON.parse(g.resource) as Record<string, unknown>) },
    scopeSpans: [{ scope: g.scope, spans: g.spans }],
  }));
}
