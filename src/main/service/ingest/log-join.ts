/**
 * GenAI log records joined to their spans (logs.ts turns each into the span event it stands for).
 * A span that is already stored gets the events appended to the span as received (its raw OTLP form,
 * read back with `exportTraceSpans`) and is imported again: the import replaces it, so the chat, the
 * summaries, search and both stores see its messages exactly as if the emitter had put them on the
 * span. Records whose span has not arrived yet (exporters send logs and traces on their own schedules)
 * wait in memory and are joined after a later trace import; they are bounded (MAX_PENDING records,
 * PENDING_TTL_MS) and lost on restart (docs/ingest.md "OTLP logs").
 *
 * Joins run one after another (a chain of promises), so two log posts for one span never overwrite
 * each other's events. An event already on the span (same name, time and attributes: an exporter's
 * retry) is not added twice.
 */
import type { ExportSpan, TraceStore } from '../../store/ports.js';
import type { EventBus } from '../events.js';
import { field, isObj, readId, type Obj } from './lenient.js';
import { importBuffer } from './buffer.js';
import { resourceSpansOf } from './otlp-build.js';
import type { LogEvent } from './logs.js';

/** Records waiting for their span, at most (the oldest are dropped beyond). */
export const MAX_PENDING = 20_000;
/** How long a record waits for its span. */
export const PENDING_TTL_MS = 15 * 60_000;
/** Traces retried after one trace import, at most (the rest wait for the next). */
const RETRY_TRACES = 256;

export interface JoinResult {
  /** Records added to a stored span (or already on it). */
  joined: number;
  /** Records waiting for their span. */
  waiting: number;
}

interface Pending {
  project: string;
  trace: string;
  events: LogEvent[];
  since: number;
}

/** An event's identity for de-duplication: name, time (as a string: JSON and protobuf spell int64 either way) and attributes. */
const eventKey = (e: unknown): string => {
  if (!isObj(e)) return JSON.stringify(e);
  const t = field(e, 'timeUnixNano', 'time_unix_nano');
  return JSON.stringify([e.name, typeof t === 'string' || typeof t === 'number' ? String(t) : '', e.attributes]);
};

export class LogJoiner {
  private readonly pending = new Map<string, Pending>();
  private pendingCount = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: TraceStore,
    private readonly events?: EventBus,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records waiting for their span. */
  get waiting(): number {
    return this.pendingCount;
  }

  /** Joins the events to their spans; those whose span is not stored yet wait. */
  receive(events: readonly LogEvent[]): Promise<JoinResult> {
    return this.serial(async () => {
      const byTrace = new Map<string, LogEvent[]>();
      for (const e of events) {
        const k = `${e.project_id}\u0000${e.trace_id}`;
        const list = byTrace.get(k);
        if (list) list.push(e);
        else byTrace.set(k, [e]);
      }
      let joined = 0;
      for (const [k, list] of byTrace) {
        const left = await this.join(list[0]!.project_id, list[0]!.trace_id, list);
        joined += list.length - left.length;
        if (left.length) this.wait(k, list[0]!.project_id, list[0]!.trace_id, left);
      }
      this.expire();
      return { joined, waiting: this.pendingCount };
    });
  }

  /** After a trace import: joins waiting records whose spans may have arrived. Cheap when nothing waits. */
  retryPending(): Promise<JoinResult> {
    if (this.pendingCount === 0) return Promise.resolve({ joined: 0, waiting: 0 });
    return this.serial(async () => {
      this.expire();
      let joined = 0;
      for (const [k, p] of [...this.pending].slice(0, RETRY_TRACES)) {
        const left = await this.join(p.project, p.trace, p.events);
        joined += p.events.length - left.length;
        this.pendingCount -= p.events.length - left.length;
        if (left.length) p.events = left;
        else this.pending.delete(k);
      }
      return { joined, waiting: this.pendingCount };
    });
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.tail.then(f, f);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private wait(key: string, project: string, trace: string, events: LogEvent[]): void {
    const p = this.pending.get(key);
    if (p) p.events.push(...events);
    else this.pending.set(key, { project, trace, events: [...events], since: this.now() });
    this.pendingCount += events.length;
  }

  /** Drops records that waited too long, then the oldest traces' records beyond MAX_PENDING. */
  private expire(): void {
    const cutoff = this.now() - PENDING_TTL_MS;
    for (const [k, p] of this.pending) {
      if (p.since >= cutoff && this.pendingCount <= MAX_PENDING) break; // Map order is arrival order
      this.pending.delete(k);
      this.pendingCount -= p.events.length;
    }
  }

  /** Adds the events to their stored spans and re-imports the spans changed; returns the events whose span is not stored. */
  private async join(project: string, trace: string, events: LogEvent[]): Promise<LogEvent[]> {
    const stored = await this.store.exportTraceSpans(project, trace);
    if (!stored.length) return events;
    const spans = new Map<string, { row: ExportSpan; raw: Obj; keys: Set<string> | null }>();
    for (const row of stored) {
      const raw = JSON.parse(row.raw_span) as Obj;
      const id = readId(field(raw, 'spanId', 'span_id'), 8);
      if (id) spans.set(id, { row, raw, keys: null });
    }
    const left: LogEvent[] = [];
    const changed = new Set<string>();
    for (const e of events) {
      const s = spans.get(e.span_id);
      if (!s) {
        left.push(e);
        continue;
      }
      if (!Array.isArray(s.raw.events)) s.raw.events = [];
      const list = s.raw.events as unknown[];
      s.keys ??= new Set(list.map(eventKey));
      const key = eventKey(e.event);
      if (s.keys.has(key)) continue;
      s.keys.add(key);
      list.push(e.event);
      changed.add(e.span_id);
    }
    if (changed.size) {
      const rows = [...changed].map((id) => spans.get(id)!);
      const raws = new Map(rows.map((s) => [s.row, s.raw]));
      const body = Buffer.from(JSON.stringify({ resourceSpans: resourceSpansOf(raws.keys(), (r) => raws.get(r)) }));
      await importBuffer(this.store, body, { contentType: 'application/json', projectId: project, events: this.events });
    }
    return left;
  }
}

const joiners = new WeakMap<object, LogJoiner>();

/** The server's joiner (one per service context, like its body ingester). */
export function logJoiner(ctx: { traces: TraceStore; events?: EventBus }): LogJoiner {
  let j = joiners.get(ctx);
  if (!j) joiners.set(ctx, (j = new LogJoiner(ctx.traces, ctx.events)));
  return j;
}
