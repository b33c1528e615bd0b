/**
 * `POST /export`: the selection as OTLP JSON Lines, one ExportTraceServiceRequest per trace, built
 * from the spans as they were received (raw_span_dump) so a round trip through any OTLP tool —
 * Loupe's own importer included — keeps every attribute.
 */
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { ReadOptions } from '../../store/ports.js';

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

export async function* exportSelection(input: OpParsedInput<'system.export'>, ctx: ServiceContext, opts?: ReadOptions): AsyncGenerator<{ resourceSpans: unknown[] }> {
  for (const traceId of await ctx.traces.exportTraceIds(input, opts)) {
    const groups = new Map<string, { resource: string; scope: { name: string; version?: string }; spans: unknown[] }>();
    for (const s of await ctx.traces.exportTraceSpans(input.project_id, traceId, opts)) {
      const key = `${s.resource_attributes}\u0000${s.scope_name ?? ''}\u0000${s.scope_version ?? ''}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { resource: s.resource_attributes, scope: { name: s.scope_name ?? '', ...(s.scope_version ? { version: s.scope_version } : {}) }, spans: [] }));
      g.spans.push(JSON.parse(s.raw_span));
    }
    if (!groups.size) continue;
    yield {
      resourceSpans: [...groups.values()].map((g) => ({
        resource: { attributes: toKeyValues(JSON.parse(g.resource) as Record<string, unknown>) },
        scopeSpans: [{ scope: g.scope, spans: g.spans }],
      })),
    };
  }
}
