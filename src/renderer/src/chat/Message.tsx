/**
 * One chat message (interface.md "Chat message", with the extension fields of docs/chat.md):
 * user and assistant bubbles (assistant text as markdown, long ones folded), tool calls as one
 * compact line each that unfolds to arguments and result, agent cards, agent-to-agent handoffs,
 * compaction markers; reasoning folded; the error type and message of anything that failed.
 * Props: plan (chat/plan.ts: the message and what to draw of it), onSpan?(span_id) to open the span
 * in the trace view's panel. Search matches are marked over the rendered text (chat/highlight.ts).
 */
import { useState, type ReactNode } from 'react';
import { Icon } from '../components/Icon';
import type { ChatMessage } from '../api/views';
import { JsonView } from '../components/JsonView';
import { fmtCost, fmtDuration, fmtTokens } from '../components/format';
import { FeedbackBadges } from './Feedback';
import { useUi } from '../stores/ui';
import { Markdown } from './Markdown';
import { Collapsible } from './Collapsible';
import { ToolResult } from './ToolResult';
import { callSignature, type ToolRequest } from '../../../shared/tool-calls';
import type { PlannedMessage } from './plan';

interface Props {
  plan: PlannedMessage;
  onSpan?(spanId: string): void;
}

export function Message({ plan, onSpan }: Props) {
  const m = plan.message;
  if (plan.hidden) return null;
  const spanLink = onSpan && m.span_id ? <button className="link" onClick={() => onSpan(m.span_id!)} title="Show this span in the panel">span</button> : null;
  switch (m.type) {
    case 'user_message': {
      const text = m.user_message?.text ?? '';
      return (
        <div className="msg user" data-testid="msg-user" data-span={m.span_id ?? undefined}>
          <div className="bubble plain">
            <Collapsible text={text}>{text}</Collapsible>
          </div>
          <FeedbackBadges items={m.feedback} />
        </div>
      );
    }
    case 'assistant_message':
      return <Assistant m={m} plan={plan} spanLink={spanLink} />;
    case 'tool_call':
      return <ToolCallLine m={m} spanLink={spanLink} />;
    case 'agent_start':
      return <AgentCard m={m} spanLink={spanLink} />;
    case 'agent_handoff': {
      const h = m.agent_handoff;
      const text = h?.text ?? '';
      return (
        <div className="msg handoff" data-testid="msg-handoff" data-span={m.span_id ?? undefined}>
          <div className="who">
            <Icon name="agent" size={11} /> {h?.from_agent ?? m.agent_name ?? 'agent'} → {h?.to_agent ?? 'agent'}
          </div>
          <div className="bubble">{text ? <Collapsible text={text}><Markdown text={text} /></Collapsible> : <span className="faint">(hands over without a message)</span>}</div>
          <div className="meta">{spanLink}</div>
        </div>
      );
    }
    case 'context_compacted': {
      const c = m.context_compacted!;
      const counts = c.compaction_items_before !== null ? ` ${c.compaction_items_before} → ${c.compaction_items_after ?? '?'} items` : '';
      return (
        <div className="compaction" data-testid="msg-compaction">
          <span className="line" />
          <details>
            <summary>Context compacted{counts}</summary>
            {c.compaction_summary && <pre>{c.compaction_summary}</pre>}
          </details>
          <span className="line" />
        </div>
      );
    }
    default:
      return <div className="msg faint">{m.type}</div>;
  }
}

/** The failure of a span, in words: its error type and message (extension fields), else its status alone. */
export function ErrorLine({ type, message }: { type?: string | null; message?: string | null }) {
  return (
    <div className="error-line" role="note" data-testid="error-line">
      <strong>{type || 'Error'}</strong>
      {message ? <>: {message}</> : <span className="faint"> (no error message was recorded)</span>}
    </div>
  );
}

function Assistant({ m, plan, spanLink }: { m: ChatMessage; plan: PlannedMessage; spanLink: ReactNode }) {
  const a = m.assistant_message!;
  const failed = m.status_code === 'ERROR' || a.status === 'ERROR';
  const text = plan.requestOnly ? '' : a.text;
  const meta = (
    <div className="meta">
      {a.model && <span className="pill">{a.model}</span>}
      {(a.input_tokens !== null || a.output_tokens !== null) && <span title="input → output tokens">{fmtTokens(a.input_tokens)} → {fmtTokens(a.output_tokens)} tok</span>}
      {a.total_cost_usd !== null && <span>{fmtCost(a.total_cost_usd)}</span>}
      {a.duration_ms !== null && <span>{fmtDuration(a.duration_ms)}</span>}
      {spanLink}
      <FeedbackBadges items={m.feedback} />
    </div>
  );
  // A model call that only asked for tools: its calls are drawn by the tool lines; keep its reasoning and cost.
  if (plan.requestOnly && !failed) {
    return (
      <div className="msg assistant step" data-testid="msg-assistant-step" data-span={m.span_id ?? undefined}>
        <div className="who">{m.agent_name ?? 'assistant'} asks for {plan.requests.map((r) => callSignature(r.name, r.args)).join(', ')}</div>
        {a.reasoning_content && <Reasoning text={a.reasoning_content} tokens={a.reasoning_tokens} />}
        {plan.unanswered.map((r, i) => <RequestLine key={`${r.id ?? r.name}-${i}`} r={r} />)}
        {meta}
      </div>
    );
  }
  // A model call whose emitter recorded no output: a step, not an empty bubble.
  if (plan.unrecorded && !failed) {
    return (
      <div className="msg assistant step" data-testid="msg-assistant-step" data-span={m.span_id ?? undefined}>
        <div className="who">{m.agent_name ?? 'assistant'} called the model <span className="faint">(no output recorded)</span></div>
        {meta}
      </div>
    );
  }
  return (
    <div className={`msg assistant ${failed ? 'error' : ''}`} data-testid="msg-assistant" data-span={m.span_id ?? undefined}>
      <div className="who">{m.agent_name ?? 'assistant'}</div>
      <div className="bubble">
        {a.reasoning_content && <Reasoning text={a.reasoning_content} tokens={a.reasoning_tokens} />}
        {text ? (
          <Collapsible text={text}><Markdown text={text} /></Collapsible>
        ) : !plan.unanswered.length && !a.reasoning_content && !failed && <span className="faint">(no output recorded)</span>}
        {plan.unanswered.map((r, i) => <RequestLine key={`${r.id ?? r.name}-${i}`} r={r} />)}
        {failed && <ErrorLine type={a.error_type} message={a.error_message} />}
      </div>
      {meta}
    </div>
  );
}

function Reasoning({ text, tokens }: { text: string; tokens: number | null }) {
  return (
    <details className="reasoning">
      <summary>Reasoning{tokens ? ` (${fmtTokens(tokens)} tokens)` : ''}</summary>
      <pre>{text}</pre>
    </details>
  );
}

/** A requested call that no tool span ran: its signature and arguments, no result. */
function RequestLine({ r }: { r: ToolRequest }) {
  const [open, setOpen] = useState(false);
  const sig = callSignature(r.name, r.args);
  return (
    <div className="tool-line requested" data-testid="tool-request">
      <button className="tool-sig" aria-expanded={open} onClick={() => setOpen((o) => !o)} title={sig}>
        <span className="chev">{open ? '▾' : '▸'}</span>
        <Icon name="tool" size={12} />
        <span className="sig">{sig}</span>
      </button>
      <span className="faint">requested, not run in this trace</span>
      {open && <div className="tool-body"><div className="label">Arguments</div><JsonView value={r.args} expandLevel={2} label="tool arguments" /></div>}
    </div>
  );
}

/** One tool call: `name(args…)`, duration and status on one line; a click shows arguments and result. */
function ToolCallLine({ m, spanLink }: { m: ChatMessage; spanLink: ReactNode }) {
  const t = m.tool_call!;
  const expandAll = useUi((s) => s.display.expandToolResults);
  const failed = m.status_code === 'ERROR' || t.status === 'ERROR';
  const [open, setOpen] = useState(expandAll);
  const name = t.tool_name ?? 'tool';
  const sig = callSignature(name, t.tool_arguments);
  return (
    <div className={`tool-line ${failed ? 'error' : ''}`} data-testid="msg-tool" data-span={m.span_id ?? undefined} data-tool={name}>
      <div className="tool-head">
        <button className="tool-sig" aria-expanded={open} onClick={() => setOpen((o) => !o)} title={sig} data-testid="tool-sig">
          <span className="chev">{open ? '▾' : '▸'}</span>
          <Icon name="tool" size={12} />
          <span className="sig">{sig}</span>
        </button>
        {t.duration_ms !== null && <span className="faint">{fmtDuration(t.duration_ms)}</span>}
        {failed ? <span className="pill error">failed</span> : t.tool_result === null ? <span className="faint">no result recorded</span> : null}
        {spanLink}
        <FeedbackBadges items={m.feedback} />
      </div>
      {failed && <ErrorLine type={t.error_type} message={t.error_message} />}
      {open && (
        <div className="tool-body" data-testid="tool-body">
          <div className="label">Arguments</div>
          {t.tool_arguments !== null ? <JsonView value={t.tool_arguments} expandLevel={2} label="tool arguments" /> : <span className="faint">none recorded</span>}
          <div className="label">Result</div>
          {t.tool_result !== null ? <ToolResult value={t.tool_result} /> : <span className="faint">none recorded</span>}
        </div>
      )}
    </div>
  );
}

function AgentCard({ m, spanLink }: { m: ChatMessage; spanLink: ReactNode }) {
  const s = m.agent_start!;
  const failed = m.status_code === 'ERROR';
  return (
    <div className={`card agent-start ${failed ? 'error' : ''}`} data-testid="msg-agent-start" data-span={m.span_id ?? undefined}>
      <div className="card-head">
        <strong><Icon name="agent" /> {m.agent_name ?? 'agent'}</strong>
        {m.agent_version && <span className="faint">v{m.agent_version}</span>}
        {s.model && <span className="pill">{s.model}</span>}
        {s.system_instructions && (
          <details><summary>Instructions</summary><pre className="sys">{s.system_instructions}</pre></details>
        )}
        {s.tool_definitions && (
          <details><summary>Tools</summary><JsonView value={s.tool_definitions} expandLevel={1} label="tool definitions" /></details>
        )}
        {spanLink}
      </div>
      {failed && <ErrorLine />}
      <FeedbackBadges items={m.feedback} />
    </div>
  );
}
