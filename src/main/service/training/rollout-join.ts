/**
 * One trace per logged rollout (issue 22.15). A rollout's completions were each recorded as a `chat`
 * span in a trace of its own when they were answered (record.ts); its `/log` trajectory names them
 * (each choice carries `loupe: {trace_id, span_id}`). Here the trajectory's trace — which took its
 * first completion's trace id (rollouts.ts) — receives the recorded spans as they were stored (times,
 * usage, request parameters), re-parented under its `invoke_agent` root, and the completions' own
 * traces are deleted once the rollout trace is stored: every call appears once, inside its rollout.
 *
 * Exact, not guessed: only the span a choice names moves; a named span that is not stored (recording
 * off, deleted since) leaves the chat span built from the trajectory in its place. A retried /log
 * finds the spans already in the rollout trace and writes the same trace again (the root's id is
 * derived from the trace id). Crash between the import and the delete: the completions' traces
 * remain beside the rollout until the /log is retried — never a rollout without its calls.
 */
import type { ServiceContext } from '../context.js';
import type { ExportSpan } from '../../store/ports.js';
import { keyValues } from '../../demo/otlp.js';
import { spansRequest, type OtlpSpan } from './spans.js';
import type { LinkedRollout } from './rollouts.js';

type RawSpan = Record<string, unknown> & { attributes?: { key: string; value: unknown }[] };

/** A stored span (raw OTLP JSON) moved into the rollout trace under its root, with the rollout's attributes. */
function moved(raw: RawSpan, traceId: string, rootId: string, common: LinkedRollout['common']): RawSpan {
  const add = keyValues(common);
  const keep = (raw.attributes ?? []).filter((a) => !add.some((b) => b.key === a.key));
  return { ...raw, traceId, parentSpanId: rootId, attributes: [...keep, ...add] };
}

const nsOf = (raw: RawSpan, key: 'startTimeUnixNano' | 'endTimeUnixNano'): bigint | null => {
  const v = raw[key];
  return typeof v === 'string' || typeof v === 'number' ? BigInt(v) : null;
};

/** Stores the linked rollouts of one /log; answers after the completions' own traces are gone. */
export async function storeLinkedRollouts(ctx: ServiceContext, projectId: string, linked: LinkedRollout[], importRequest: (r: Record<string, unknown>) => Promise<unknown>): Promise<void> {
  if (!linked.length) return;
  const byTrace = new Map<string, Promise<Map<string, RawSpan>>>();
  const read = async (trace: string): Promise<Map<string, RawSpan>> => {
    const rows: ExportSpan[] = await ctx.traces.exportTraceSpans(projectId, trace);
    return new Map(rows.map((r) => JSON.parse(r.raw_span) as RawSpan).map((raw) => [typeof raw.spanId === 'string' ? raw.spanId : '', raw]));
  };
  const spansOf = (trace: string): Promise<Map<string, RawSpan>> => {
    let m = byTrace.get(trace);
    if (!m) byTrace.set(trace, (m = read(trace)));
    return m;
  };
  // The rollout traces read together (the read pool runs them side by side): a /log of 128 one-call
  // rollouts is 128 reads, and nothing to delete (each rollout took its one completion's trace).
  await Promise.all(linked.map((r) => spansOf(r.trace_id)));

  const built: OtlpSpan[] = [];
  const raws: RawSpan[] = [];
  const emptied = new Set<string>();
  const movedIds = new Set<string>();
  for (const r of linked) {
    const root = r.spans[0]!;
    const found = new Map<string, RawSpan>();
    const own = await spansOf(r.trace_id);
    for (const ref of r.moves) {
      // Already in the rollout trace (a retried /log, or the first completion's own trace), else where it was recorded.
      let raw = own.get(ref.span_id);
      if (!raw && ref.trace_id !== r.trace_id) {
        raw = (await spansOf(ref.trace_id)).get(ref.span_id);
        if (raw) emptied.add(ref.trace_id);
      }
      if (!raw) continue;
      found.set(ref.span_id, moved(raw, r.trace_id, root.spanId, r.common));
      movedIds.add(ref.span_id);
    }
    // The root spans its children: the recorded calls keep their real times.
    const children = r.spans.slice(1);
    let start = root.startNs;
    let end = root.endNs;
    for (const c of children) {
      const raw = found.get(c.spanId);
      const s = raw ? nsOf(raw, 'startTimeUnixNano') : c.startNs;
      const e = raw ? nsOf(raw, 'endTimeUnixNano') : c.endNs;
      if (s !== null && s < start) start = s;
      if (e !== null && e > end) end = e;
    }
    built.push({ ...root, startNs: start, endNs: end }, ...children.filter((c) => !found.has(c.spanId)));
    raws.push(...found.values());
  }
  const request = spansRequest(projectId, built) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  request.resourceSpans[0]!.scopeSpans[0]!.spans.push(...raws);
  await importRequest(request);
  // A completion's trace holds its one chat span: once that is stored in the rollout, the trace is
  // deleted — only when every span it holds moved (a trace something else wrote into stays).
  const rollouts = new Set(linked.map((r) => r.trace_id));
  const gone: string[] = [];
  for (const t of emptied) if (!rollouts.has(t) && [...(await spansOf(t)).keys()].every((id) => movedIds.has(id))) gone.push(t);
  if (gone.length) await ctx.traces.deleteSpans({ kind: 'traces', project_id: projectId, trace_ids: gone });
}
