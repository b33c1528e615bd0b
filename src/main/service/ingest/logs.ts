/**
 * OTLP logs (`POST /v1/logs`, JSON or protobuf, optionally gzip): GenAI instrumentations more and more
 * send a model call's messages as LOG records tied to the call's span by trace and span id instead of
 * span attributes or span events (OpenTelemetry's OpenAI instrumentations: `gen_ai.user.message`,
 * `gen_ai.choice`, ... with the content in the body; `gen_ai.client.inference.operation.details` with
 * `gen_ai.input.messages` / `gen_ai.output.messages` attributes). Each such record is turned into the
 * span event it stands for (name = the record's event name, attributes = its attributes plus its body's
 * fields), so the span's messages are read by the same carriers as span events (extract.ts); log-join.ts
 * adds them to their span. Records that are not GenAI events, or carry no span, are accepted and not kept.
 *
 * `decodeLogsBody` is the one way a body becomes a request object, within the decode budget (budget.ts).
 */
import protobuf from 'protobufjs';
import { OTLP_TRACE_PROTO } from './proto/trace-proto.js';
import { OTLP_LOGS_PROTO } from './proto/logs-proto.js';
import { ServiceError } from '../../../shared/errors.js';
import { field, isObj, readId, str, type Obj } from './lenient.js';
import { gunzipBody } from './buffer.js';
import { DecodeBudget, checkJsonBudget, checkProtoBudget } from './budget.js';
import { isGzip } from './document.js';
import { DEFAULT_PROJECT } from './normalize.js';

const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;
protobuf.parse(OTLP_LOGS_PROTO, root, { keepCase: false });
const Request = root.lookupType('opentelemetry.proto.ExportLogsServiceRequest');
const Response = root.lookupType('opentelemetry.proto.ExportLogsServiceResponse');

/** One log record as the span event it stands for, with the span it belongs to. */
export interface LogEvent {
  project_id: string;
  trace_id: string;
  span_id: string;
  /** OTLP/JSON span event: `{timeUnixNano, name, attributes: KeyValue[]}`. */
  event: Obj;
}

export interface LogsRead {
  events: LogEvent[];
  /** Log records in the request. */
  records: number;
}

/** Decompresses and parses a /v1/logs body into an ExportLogsServiceRequest object (OTLP/JSON form, hex ids). */
export function decodeLogsBody(body: Buffer, opts: { proto: boolean; contentEncoding?: string }): Obj {
  const enc = (opts.contentEncoding ?? '').trim().toLowerCase();
  // The same decode budget as trace bodies, counting log records (budget.ts): 413 naming the limit.
  const budget = new DecodeBudget('body', 'logs');
  const data = enc === 'gzip' || enc === 'x-gzip' || isGzip(body) ? gunzipBody(body, opts.proto ? 'proto' : 'json', budget) : body;
  if (data.length === 0) return {};
  if (opts.proto) checkProtoBudget(data, budget);
  else checkJsonBudget(data, budget);
  if (opts.proto) {
    let obj: Obj;
    try {
      obj = Request.toObject(Request.decode(data), { longs: String, enums: Number, bytes: String, defaults: false, arrays: false });
    } catch (e) {
      throw new ServiceError(400, `body: not an OTLP ExportLogsServiceRequest (${(e as Error).message})`);
    }
    for (const rl of (obj.resourceLogs as Obj[] | undefined) ?? []) {
      for (const sl of (rl.scopeLogs as Obj[] | undefined) ?? []) {
        for (const r of (sl.logRecords as Obj[] | undefined) ?? []) {
          for (const k of ['traceId', 'spanId']) if (typeof r[k] === 'string') r[k] = Buffer.from(r[k], 'base64').toString('hex');
        }
      }
    }
    return obj;
  }
  let v: unknown;
  try {
    v = JSON.parse(data.toString('utf8'));
  } catch (e) {
    throw new ServiceError(400, `body: not JSON (${(e as Error).message})`);
  }
  if (!isObj(v) || (Object.keys(v).length > 0 && field(v, 'resourceLogs', 'resource_logs') === undefined)) {
    throw new ServiceError(400, `body: not OTLP logs data: expected an ExportLogsServiceRequest object with "resourceLogs"${isObj(v) ? ` (found keys ${Object.keys(v).slice(0, 5).map((k) => `"${k}"`).join(', ')})` : ''}`);
  }
  return v;
}

/** A GenAI event: the names of the GenAI semantic conventions' events (`gen_ai.*`). */
const isGenAiEvent = (name: string | null): name is string => name !== null && name.startsWith('gen_ai.');

/** The GenAI events of a logs request, each with its span; `projectId` (the x-project-id header) wins over `svc.project_id`. */
export function logEvents(req: Obj, projectId: string | undefined): LogsRead {
  const out: LogsRead = { events: [], records: 0 };
  const rls = field(req, 'resourceLogs', 'resource_logs');
  if (!Array.isArray(rls)) return out;
  for (const rl of rls) {
    if (!isObj(rl)) continue;
    const resourceAttrs = isObj(rl.resource) && Array.isArray(rl.resource.attributes) ? (rl.resource.attributes as unknown[]) : [];
    const projectAttr = resourceAttrs.find((kv) => isObj(kv) && kv.key === 'svc.project_id');
    const project = projectId ?? (isObj(projectAttr) && isObj(projectAttr.value) ? str(projectAttr.value.stringValue) : null) ?? DEFAULT_PROJECT;
    const scopes = field(rl, 'scopeLogs', 'scope_logs');
    if (!Array.isArray(scopes)) continue;
    for (const sl of scopes) {
      const records = isObj(sl) ? field(sl, 'logRecords', 'log_records') : null;
      if (!Array.isArray(records)) continue;
      for (const r of records) {
        out.records++;
        if (!isObj(r)) continue;
        const e = eventOf(r);
        const trace_id = readId(field(r, 'traceId', 'trace_id'), 16);
        const span_id = readId(field(r, 'spanId', 'span_id'), 8);
        if (e && trace_id && span_id) out.events.push({ project_id: project, trace_id, span_id, event: e });
      }
    }
  }
  return out;
}

/**
 * The span event a log record stands for, or null when it is not a GenAI event. Its name is the
 * record's `event_name`, else its `event.name` attribute (the older spelling); its attributes are the
 * record's (less `event.name`) followed by the body's fields when the body is a map (a body of another
 * kind is kept as the attribute `body`).
 */
function eventOf(r: Obj): Obj | null {
  const attrs = (Array.isArray(r.attributes) ? r.attributes : []).filter((kv): kv is Obj => isObj(kv) && typeof kv.key === 'string');
  const named = attrs.find((kv) => kv.key === 'event.name');
  const name = str(field(r, 'eventName', 'event_name')) ?? (named && isObj(named.value) ? str(named.value.stringValue) : null);
  if (!isGenAiEvent(name)) return null;
  const out = attrs.filter((kv) => kv.key !== 'event.name');
  const body = isObj(r.body) ? r.body : null;
  const kvlist = body ? field(body, 'kvlistValue', 'kvlist_value') : null;
  if (isObj(kvlist) && Array.isArray(kvlist.values)) {
    for (const kv of kvlist.values) if (isObj(kv) && typeof kv.key === 'string' && !out.some((a) => a.key === kv.key)) out.push(kv);
  } else if (body && Object.keys(body).length) out.push({ key: 'body', value: body });
  const time = field(r, 'timeUnixNano', 'time_unix_nano');
  const observed = field(r, 'observedTimeUnixNano', 'observed_time_unix_nano');
  return { timeUnixNano: time && time !== '0' ? time : (observed ?? '0'), name, attributes: out };
}

/** The OTLP/HTTP response body for a protobuf logs request. */
export function encodeLogsResponse(rejected: number, message: string): Uint8Array {
  const body = rejected > 0 || message ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: message } } : {};
  return Response.encode(Response.fromObject(body)).finish();
}
