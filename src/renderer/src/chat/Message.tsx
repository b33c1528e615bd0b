/**
 * One chat message (interface.md "Chat message"): user and assistant bubbles, tool calls with
 * folded JSON arguments/results, agent_start cards (system instructions and tool definitions
 * collapsed), compaction markers; reasoning collapsed; errors in red; feedback badges.
 * Props: message, onSpan?(span_id) to open the span in the trace view's detail panel.
 */
import { Icon } from '../components/Icon';
import type { ChatMessage } from '../api/views';
import { JsonView } from '../components/JsonView';
import { fmtCost, fmtDuration, fmtTokens } from '../components/format';
import { FeedbackBadges } from './Feedback';
import { useUi } from '../stores/ui';

export function Message({ message: m, onSpan }: { message: ChatMessage; onSpan?(spanId: string): void }) {
  const error = m.status_code === 'ERROR';
  const spanLink = onSpan && m.span_id ? <button className="link" onClick={() => onSpan(m.span_id!)} title="Show span">span</button> : null;
  switch (m.type) {
    case 'user_message':
      return (
        <div className="msg user" data-testid="msg-user" data-span={m.span_id ?? undefined}>
          <div className="bubble">{m.user_message?.text}</div>
          <FeedbackBadges items={m.feedback} />
        </div>
      );
    case 'assistant_message': {
      const a = m.assistant_message!;
      return (
        <div className={`msg assistant ${error || a.status === 'ERROR' ? 'error' : ''}`} data-testid="msg-assistant" data-span={m.span_id ?? undefined}>
          <div className="who">{m.agent_name ?? 'assistant'}</div>
          <div className="bubble">
            {a.reasoning_content && (
              <details className="reasoning">
                <summary>Reasoning{a.reasoning_tokens ? ` (${fmtTokens(a.reasoning_tokens)} tokens)` : ''}</summary>
                <pre>{a.reasoning_content}</pre>
              </details>
            )}
            <div className="text">{a.text || <span className="faint">(no text)</span>}</div>
          </div>
          <div className="meta">
            {a.model && <span className="pill">{a.model}</span>}
            {(a.input_tokens !== null || a.output_tokens !== null) && <span title="input / output tokens">{fmtTokens(a.input_tokens)} → {fmtTokens(a.output_tokens)} tok</span>}
            {a.total_cost_usd !== null && <span>{fmtCost(a.total_cost_usd)}</span>}
            {a.duration_ms !== null && <span>{fmtDuration(a.duration_ms)}</span>}
            {(error || a.status === 'ERROR') && <span className="error-text">error</span>}
            {spanLink}
            <FeedbackBadges items={m.feedback} />
          </div>
        </div>
      );
    }
    case 'tool_call':
      return <ToolCall m={m} spanLink={spanLink} />;
    case 'agent_start': {
      const s = m.agent_start!;
      return (
        <div className={`card agent-start ${error ? 'error' : ''}`} data-testid="msg-agent-start" data-span={m.span_id ?? undefined}>
          <div className="card-head">
            <strong><Icon name="agent" /> {m.agent_name ?? 'agent'}</strong>
            {m.agent_version && <span className="faint">v{m.agent_version}</span>}
            {s.model && <span className="pill">{s.model}</span>}
            {error && <span className="error-text">error</span>}
            {spanLink}
          </div>
          {s.system_instructions && (
            <details><summary>System instructions</summary><pre className="sys">{s.system_instructions}</pre></details>
          )}
          {s.tool_definitions && (
            <details><summary>Tool definitions</summary><JsonView value={s.tool_definitions} expandLevel={1} label="tool definitions" /></details>
          )}
          <FeedbackBadges items={m.feedback} />
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

function ToolCall({ m, spanLink }: { m: ChatMessage; spanLink: React.ReactNode }) {
  const t = m.tool_call!;
  const expand = useUi((s) => s.display.expandToolResults);
  const error = m.status_code === 'ERROR' || t.status === 'ERROR';
  return (
    <div className={`card tool ${error ? 'error' : ''}`} data-testid="msg-tool" data-span={m.span_id ?? undefined}>
      <div className="card-head">
        <strong><Icon name="tool" /> {t.tool_name ?? 'tool'}</strong>
        {t.duration_ms !== null && <span className="faint">{fmtDuration(t.duration_ms)}</span>}
        {error && <span className="error-text">error</span>}
        {spanLink}
      </div>
      {t.tool_arguments !== null && (
        <div className="tool-part"><div className="label">Arguments</div><JsonView value={t.tool_arguments} expandLevel={1} label="tool arguments" /></div>
      )}
      {t.tool_result !== null && (
        <details className="tool-part" open={expand || error}>
          <summary className="label">Result</summary>
          <JsonView value={t.tool_result} expandLevel={1} label="tool result" />
        </details>
      )}
      <FeedbackBadges items={m.feedback} />
    </div>
  );
}
