/**
 * `POST /export`: the selection as OTLP JSON Lines, one ExportTraceServiceRequest per trace, built
 * from the spans as they were received (raw_span_dump) so a round trip through any OTLP tool —
 * Loupe's own importer included — keeps every attribute.
 */
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import type { ReadOptions } from '../../store/ports.js';
import { resourceSpansOf } from '../ingest/otlp-build.js';

export async function* exportSelection(input: OpParsedInput<'system.export'>, ctx: ServiceContext, opts?: ReadOptions): AsyncGenerator<{ resourceSpans: unknown[] }> {
  for (const traceId of await ctx.traces.exportTraceIds(input, opts)) {
    const spans = await ctx.traces.exportTraceSpans(input.project_id, traceId, opts);
    if (!spans.length) continue;
    yield { resourceSpans: resourceSpansOf(spans) };
  }
}
