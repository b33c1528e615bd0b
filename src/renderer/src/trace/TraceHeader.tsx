/**
 * TraceHeader — what a trace is at a glance, as Jaeger and otel-desktop-viewer lead with it: the root
 * span's name and service, status (failed spans), span count, duration, and tokens and cost from
 * the trace chat's turn header (the first page of 'chat.tracePage', counted by the same rule as every
 * other view; asking for it here also makes the Chat tab's first page ready before it is opened).
 * Props: project, traceId, tree, loading, onBack.
 */
import { useTraceChatPages } from '../chat/TraceChat';
import { fmtCost, fmtDuration, fmtUsage } from '../components/format';
import { traceTitle, traceTitleText } from '../../../shared/titles';
import { spanLabel, traceFacts, type Tree } from './model';
import { CompareButton } from '../shell/ComparePick';

export function TraceHeader(props: { project: string; traceId: string; tree: Tree; loading: boolean; onBack(): void }) {
  const facts = traceFacts(props.tree);
  const g = useTraceChatPages(props.project, props.traceId).data?.pages[0]?.turn;
  const root = facts.root?.span;
  // The service when known, then the root operation; else the agent or the root operation (shared/titles.ts).
  const title = root ? traceTitle({ service: facts.services[0], root: spanLabel(root), agent: g?.agent_name }) : null;
  const name = title ? traceTitleText(title) ?? spanLabel(root!) : props.loading ? 'Loading…' : 'Trace';
  return (
    <div className="page-head trace-head" data-testid="trace-header">
      <button onClick={props.onBack} aria-label="Back">←</button>
      <div className="chat-title">
        <h1 data-testid="trace-title" title={name}>
          {title?.service ? <><span className="svc">{title.service}: </span>{title.name}</> : title?.name ?? name}
        </h1>
        <span className="mono faint" title="trace id">{props.traceId}</span>
      </div>
      <div className="chat-totals" data-testid="trace-facts">
        {facts.services.length > 1 && <span title={facts.services.join(', ')}>{facts.services.length} services</span>}
        {facts.errors > 0 ? (
          <span className="pill error" data-testid="trace-status">{facts.errors} failed span{facts.errors === 1 ? '' : 's'}</span>
        ) : (
          root && <span className="pill ok" data-testid="trace-status">{root.status_code === 'OK' ? 'OK' : 'no errors'}</span>
        )}
        <span data-testid="trace-span-count">{props.tree.count.toLocaleString('en-US')} spans</span>
        <span title="first start to last end">{fmtDuration(facts.durationUs / 1000)}</span>
        {g && <span title={g.usage_known ? 'input → output tokens' : 'no span reported token usage'}>{fmtUsage(g.total_input_tokens ?? 0, g.total_output_tokens ?? 0, g.usage_known)}{g.usage_known ? ' tok' : ' tokens'}</span>}
        {g && g.total_cost_usd !== null && <span title="cost">{fmtCost(g.total_cost_usd)}</span>}
      </div>
      <CompareButton traceId={props.traceId} />
    </div>
  );
}
