/**
 * Walks one OTLP trace request (ExportTraceServiceRequest / TracesData, JSON form) and normalizes
 * its spans. Also classifies a parsed JSON value: trace request, logs/metrics request (skipped and
 * counted), or not telemetry at all.
 */
import type { SpanRecord } from '../../domain/span.js';
import { attributes, field, isObj, str, type Obj } from './lenient.js';
import { DEFAULT_PROJECT, admitSpan, normalizeSpan, type Normalized, type SpanContext } from './normalize.js';
import { errorMessage } from '../../../shared/errors.js';
import type { InputHistory } from './history.js';

export type Kind = 'traces' | 'other-signal' | 'not-otlp';

export function classify(v: unknown): Kind {
  if (!isObj(v)) return 'not-otlp';
  if (field(v, 'resourceSpans', 'resource_spans') !== undefined) return 'traces';
  if (field(v, 'resourceLogs', 'resource_logs') !== undefined || field(v, 'resourceMetrics', 'resource_metrics') !== undefined) return 'other-signal';
  return 'not-otlp';
}

export interface WalkSink {
  span(s: SpanRecord): void;
  /** A span without what makes it a span (ids): counted by reason. */
  skip(reason: string): void;
  /** A real span that cannot be stored (bad time, unreadable): counted and reported with its line. */
  reject?(s: Obj, reason: string): void;
  /**
   * Set: the walk only checks each span for what makes it storable (normalize.ts admitSpan) and calls
   * this instead of `span` — the OTLP spool's check of a large body (spool.ts).
   */
  admitted?(): void;
}

/**
 * Normalizes every span of a request into `sink`. `projectId` (the x-project-id header / import
 * option) wins over the resource attribute `svc.project_id`. `rawDump` lets the protobuf reader
 * supply its own JSON form of each span; `history` (history.ts) reads repeated input messages once.
 */
export function walkRequest(req: Obj, projectId: string | undefined, sink: WalkSink, rawDump?: (span: Obj) => string, history?: InputHistory): void {
  const rss = field(req, 'resourceSpans', 'resource_spans');
  if (!Array.isArray(rss)) return;
  for (const rs of rss) {
    if (!isObj(rs)) continue;
    const resource = isObj(rs.resource) ? attributes(rs.resource.attributes) : {};
    const project = projectId ?? str(resource['svc.project_id']) ?? DEFAULT_PROJECT;
    const service = str(resource['service.name']);
    const scopes = field(rs, 'scopeSpans', 'scope_spans') ?? field(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans');
    if (!Array.isArray(scopes)) continue;
    for (const ss of scopes) {
      if (!isObj(ss)) continue;
      const scope = ss.scope ?? field(ss, 'instrumentationLibrary', 'instrumentation_library');
      const ctx: SpanContext = {
        project_id: project,
        resource,
        service_name: service,
        scope_name: isObj(scope) ? str(scope.name) : null,
        scope_version: isObj(scope) ? str(scope.version) : null,
        history,
      };
      const spans = ss.spans;
      if (!Array.isArray(spans)) continue;
      for (const s of spans) {
        if (!isObj(s)) {
          sink.skip('span is not an object');
          continue;
        }
        // One span that cannot be read never costs the others of its request (issue 13.2).
        if (sink.admitted) {
          const a = admitSpan(s);
          if (a.ok) sink.admitted();
          else if (a.reject) reject(sink, s, a.reason);
          else sink.skip(a.reason);
          continue;
        }
        let n: Normalized;
        try {
          n = normalizeSpan(s, ctx, rawDump?.(s));
        } catch (e) {
          reject(sink, s, `could not be read (${errorMessage(e)})`);
          continue;
        }
        if (n.ok) sink.span(n.span);
        else if (n.reject) reject(sink, s, n.reason);
        else sink.skip(n.reason);
      }
    }
  }
}

const reject = (sink: WalkSink, s: Obj, reason: string) => (sink.reject ? sink.reject(s, reason) : sink.skip(reason));
