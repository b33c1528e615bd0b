/**
 * SpanDetail — everything about one span: every non-empty column, attributes (custom ones included,
 * read from the raw OTLP span since the row's custom maps only hold requested keys), input/output
 * messages and the raw span as folded JSON. Fetched on demand ('spans.query' for one span_id with
 * include_details and include_costs) so the timeline itself can load light rows.
 * Span events (OTLP `events`) get their own section, exceptions first and drawn as errors with their
 * stack trace folded. Values are readable at any panel width: text wraps at word boundaries, JSON is
 * folded.
 * Props: project, traceId, spanId, onClose, node? (the waterfall's node, for times while loading).
 */
import { useOp } from '../api/query';
import type { SpanRow } from '../api/views';
import { JsonView, parseMaybeJson } from '../components/JsonView';
import { fmtCost, fmtDuration } from '../components/format';
import { isoToUs } from './model';
import { FeedbackControl } from '../chat/Feedback';
import { ErrorNote } from '../components/ErrorNote';
import type { Node } from './model';
import { otlpAttributes, spanEvents, type SpanEvent } from '../../../shared/otlp-span';

const HEAVY = new Set(['raw_span_dump', 'input_messages', 'output_messages', 'custom_attrs_bool', 'custom_attrs_float', 'custom_attrs_int', 'custom_attrs_string', 'tool_definitions', 'tool_call_arguments', 'tool_call_result', 'system_instructions', 'reasoning_content']);

export function SpanDetail(props: { project: string; traceId: string; spanId: string; onClose(): void; node?: Node | null }) {
  const { data, error, isLoading } = useOp('spans.query', {
    project_id: props.project,
    query: { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: props.traceId }] }, { $eq: [{ $getField: 'span_id' }, { $literal: props.spanId }] }] } },
    include_details: true,
    include_costs: true,
    limit: 1,
  });
  const span = data?.spans[0];
  const fb = useOp('feedback.query', { project_id: props.project, svc_ref: `svc:///${props.project}/span/${props.spanId}` });
  return (
    <aside className="panel detail" data-testid="span-detail" aria-label="Span detail">
      <div className="panel-head">
        <strong style={{ marginRight: 'auto', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{span?.span_name ?? props.spanId}</strong>
        <FeedbackControl project={props.project} kind="span" id={props.spanId} records={fb.data?.feedback} />
        <button onClick={props.onClose} aria-label="Close span detail" title="Close (Esc)">✕</button>
      </div>
      <div className="detail-body">
        {isLoading && <div className="faint">Loading…</div>}
        <ErrorNote error={error} what="the span" />
        {data && !span && <div className="faint">Span {props.spanId} was not found.</div>}
        {span && <SpanBody span={span} />}
      </div>
    </aside>
  );
}

function SpanBody({ span }: { span: SpanRow }) {
  const s = span as unknown as Record<string, unknown>;
  const start = isoToUs(span.started_at);
  const end = isoToUs(span.ended_at);
  const cols = Object.entries(s).filter(([k, v]) => !HEAVY.has(k) && v !== null && !(Array.isArray(v) && v.length === 0));
  const raw = parseMaybeJson(span.raw_span_dump);
  const attrs = raw.json ? otlpAttributes((raw.data as { attributes?: unknown }).attributes) : [];
  const custom = (['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'] as const).flatMap((m) => Object.entries(span[m] ?? {}));
  const events = raw.json ? spanEvents((raw.data as { events?: unknown }).events, start) : [];
  return (
    <>
      <div className="toolbar">
        <span className={`pill ${span.status_code === 'ERROR' ? 'error' : ''}`}>{span.status_code}</span>
        {start !== null && end !== null && <span className="pill">{fmtDuration((end - start) / 1000)}</span>}
        {span.total_cost_usd !== null && <span className="pill">{fmtCost(span.total_cost_usd)}</span>}
        {span.status_message && <span className="error-text">{span.status_message}</span>}
      </div>
      {events.length > 0 && <EventsSection events={events} />}
      <section>
        <h3>Columns</h3>
        <dl className="kv" data-testid="span-columns">
          {cols.map(([k, v]) => <Kv key={k} k={k} v={Array.isArray(v) ? v.join(', ') : String(v)} />)}
        </dl>
      </section>
      {(span.input_messages?.length ?? 0) + (span.output_messages?.length ?? 0) > 0 && (
        <section>
          <h3>Messages</h3>
          {[...(span.input_messages ?? []).map((m) => ({ ...m, dir: 'in' })), ...(span.output_messages ?? []).map((m) => ({ ...m, dir: 'out' }))].map((m, i) => (
            <div key={i} className="span-msg">
              <span className="pill">{m.dir} · {m.role}{m.finish_reason ? ` · ${m.finish_reason}` : ''}</span>
              <pre>{m.content}</pre>
            </div>
          ))}
        </section>
      )}
      {span.reasoning_content && <section><h3>Reasoning</h3><pre>{span.reasoning_content}</pre></section>}
      {span.system_instructions.length > 0 && <section><h3>System instructions</h3><pre>{span.system_instructions.join('\n')}</pre></section>}
      {span.tool_call_arguments !== null && <section><h3>Tool arguments</h3><JsonView value={span.tool_call_arguments} /></section>}
      {span.tool_call_result !== null && <section><h3>Tool result</h3><JsonView value={span.tool_call_result} /></section>}
      {span.tool_definitions !== null && <section><h3>Tool definitions</h3><JsonView value={span.tool_definitions} expandLevel={0} /></section>}
      {custom.length > 0 && (
        <section><h3>Custom attributes</h3><dl className="kv">{custom.map(([k, v]) => <Kv key={k} k={k} v={String(v)} />)}</dl></section>
      )}
      {attrs.length > 0 && (
        <section><h3>Attributes</h3><dl className="kv" data-testid="span-attributes">{attrs.map(([k, v]) => <Kv key={k} k={k} v={v} />)}</dl></section>
      )}
      {span.raw_span_dump && <section><h3>Raw span</h3><JsonView value={span.raw_span_dump} expandLevel={1} label="raw span" /></section>}
    </>
  );
}

/** One attribute: the key, and its value wrapped at word boundaries; JSON values folded, long text folded. */
function Kv({ k, v }: { k: string; v: string }) {
  const parsed = parseMaybeJson(v);
  return (
    <>
      <dt title={k}>{k}</dt>
      <dd>
        {parsed.json ? (
          <JsonView value={parsed.data} expandLevel={0} label={k} />
        ) : v.length > 600 ? (
          <details className="long-value"><summary>{v.slice(0, 240)}… <span className="faint">({v.length.toLocaleString('en-US')} characters)</span></summary><div className="kv-text">{v}</div></details>
        ) : (
          <span className="kv-text">{v}</span>
        )}
      </dd>
    </>
  );
}

function EventsSection({ events }: { events: SpanEvent[] }) {
  return (
    <section data-testid="span-events">
      <h3>Events ({events.length})</h3>
      {events.map((e, i) => {
        const a = Object.fromEntries(e.attrs);
        const when = e.offsetUs !== null ? <span className="faint">+{fmtDuration(e.offsetUs / 1000)}</span> : null;
        if (e.name === 'exception') {
          return (
            <div key={i} className="span-event exception" data-testid="span-exception">
              <div className="error-line"><strong>{a['exception.type'] ?? 'Exception'}</strong>{a['exception.message'] ? `: ${a['exception.message']}` : ''} {when}</div>
              {a['exception.stacktrace'] && <details><summary>Stack trace</summary><pre className="stack">{a['exception.stacktrace']}</pre></details>}
            </div>
          );
        }
        return (
          <div key={i} className="span-event">
            <div><strong>{e.name}</strong> {when}</div>
            {e.attrs.length > 0 && <dl className="kv">{e.attrs.map(([k, v]) => <Kv key={k} k={k} v={v} />)}</dl>}
          </div>
        );
      })}
    </section>
  );
}
