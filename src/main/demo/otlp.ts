/**
 * Builds OTLP/JSON the way an OpenTelemetry SDK's JSON exporter writes it: lowerCamelCase keys,
 * hex ids, integer enums, int64 as decimal strings, attributes as KeyValue/AnyValue lists.
 */
export type AttrValue = string | number | boolean | string[] | null | undefined;

export interface DemoSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SpanKind: 1 INTERNAL, 3 CLIENT. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttrValue>;
  status?: { code: 0 | 1 | 2; message?: string };
  events?: { name: string; timeNs: bigint; attributes: Record<string, AttrValue> }[];
}

type AnyValue = Record<string, unknown>;

function anyValue(v: Exclude<AttrValue, null | undefined>): AnyValue {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { stringValue: v };
}

export const keyValues = (attrs: Record<string, AttrValue>) =>
  Object.entries(attrs)
    .filter((e): e is [string, Exclude<AttrValue, null | undefined>] => e[1] !== null && e[1] !== undefined)
    .map(([key, value]) => ({ key, value: anyValue(value) }));

const PYTHON_SDK = { 'telemetry.sdk.language': 'python', 'telemetry.sdk.name': 'opentelemetry' };
const GENAI_SCOPE = { name: 'opentelemetry.instrumentation.genai', version: '0.3b0' };

/**
 * One ExportTraceServiceRequest holding the spans of one service, as one exporter flush sends it.
 * By default it looks like the Python GenAI instrumentation's (the demo); Loupe's own spans (the
 * training service's) pass their scope and no SDK resource.
 */
export function exportRequest(
  serviceName: string,
  resource: Record<string, AttrValue>,
  spans: DemoSpan[],
  opts: { scope?: { name: string; version?: string }; sdkResource?: Record<string, AttrValue> } = {},
): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': serviceName, ...(opts.sdkResource ?? PYTHON_SDK), ...resource }) },
        scopeSpans: [
          {
            scope: opts.scope ?? GENAI_SCOPE,
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: String(s.startNs),
              endTimeUnixNano: String(s.endNs),
              attributes: keyValues(s.attributes),
              events: (s.events ?? []).map((e) => ({ name: e.name, timeUnixNano: String(e.timeNs), attributes: keyValues(e.attributes) })),
              status: s.status ? { code: s.status.code, ...(s.status.message ? { message: s.status.message } : {}) } : {},
            })),
          },
        ],
      },
    ],
  };
}
