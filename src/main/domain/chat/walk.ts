/**
 * The message-building walk of semantics §4.3: one ordered timeline from the span tree of a turn.
 * Pure: spans in, messages out (feedback is attached by the caller).
 */
import { isoFromNs } from '../time.js';
import type { SpanMessage } from '../span.js';
import { buildTree, subtree, usageTotals, type SpanTree } from './tree.js';
import { durationMs, nameSuffix, type ChatSpan } from './span.js';
import { message, messageText, reasoningFromParts, type ChatMessage, type MessageHead } from './messages.js';

export const MAX_DEPTH = 200;

const opOf = (s: ChatSpan): string => {
  const op = s.operation_name?.toLowerCase();
  if (op) return op;
  if (s.span_name.startsWith('invoke_agent')) return 'invoke_agent';
  if (s.span_name.startsWith('execute_tool')) return 'execute_tool';
  return '';
};

const isUser = (m: SpanMessage) => m.role?.toLowerCase() === 'user';

/** Text of the trailing run of user-role input messages (the new user input of this call), or null. */
export function trailingUserText(input: readonly SpanMessage[]): string | null {
  const run: string[] = [];
  for (let i = input.length - 1; i >= 0 && isUser(input[i]!); i--) run.unshift(messageText(input[i]!));
  const text = run.filter(Boolean).join('\n\n');
  return text || null;
}

/** The last user-role text among a span's input messages, or null. */
function lastUserText(input: readonly SpanMessage[]): string | null {
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUser(input[i]!)) {
      const t = messageText(input[i]!);
      if (t) return t;
    }
  }
  return null;
}

/** Assistant text of a span: its non-user output messages' texts joined by a blank line. */
export function outputText(output: readonly SpanMessage[]): string {
  return output.filter((m) => !isUser(m)).map(messageText).filter(Boolean).join('\n\n');
}

export function buildMessages(spans: readonly ChatSpan[], tree: SpanTree<ChatSpan> = buildTree(spans)): ChatMessage[] {
  const out: ChatMessage[] = [];
  const visited: ChatSpan[] = [];
  let lastUser: string | null = null;
  let assistants = 0;
  let lastAssistantText: string | null = null;

  const head = (s: ChatSpan, agent: string | null, version: string | null): MessageHead => ({
    span_id: s.span_id,
    agent_name: agent,
    agent_version: version,
    status_code: s.status_code,
    started_at: s.start_ns == null ? null : isoFromNs(s.start_ns),
  });

  const emitAssistant = (s: ChatSpan, agent: string | null, version: string | null, usage: ReturnType<typeof usageTotals> | null) => {
    const text = outputText(s.output_messages);
    if (!text) return;
    out.push(
      message('assistant_message', head(s, agent, version), {
        text,
        model: s.response_model ?? s.request_model,
        reasoning_content: s.reasoning_content ?? reasoningFromParts(s.output_messages),
        reasoning_tokens: usage ? usage.reasoning_tokens : s.reasoning_tokens,
        input_tokens: usage ? usage.input_tokens : s.input_tokens,
        output_tokens: usage ? usage.output_tokens : s.output_tokens,
        input_cost_usd: usage ? usage.input_cost_usd : s.input_cost_usd,
        output_cost_usd: usage ? usage.output_cost_usd : s.output_cost_usd,
        total_cost_usd: usage ? usage.cost_usd : s.total_cost_usd,
        duration_ms: durationMs(s.start_ns, s.end_ns),
        status: s.status_code,
        content_refs: s.content_refs ?? [],
      }),
    );
    assistants++;
    lastAssistantText = text;
  };

  const walkChildren = (s: ChatSpan, agent: string | null, version: string | null, depth: number) => {
    for (const c of tree.children.get(s.span_id) ?? []) visit(c, agent, version, depth + 1);
  };

  const visit = (s: ChatSpan, label: string | null, version: string | null, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    visited.push(s);
    const op = opOf(s);
    if (op === 'invoke_agent') {
      const own = s.agent_name ?? s.agent_id;
      const agent = own ?? label ?? nameSuffix(s.span_name, 'invoke_agent');
      const ver = s.agent_version ?? (own == null ? version : null);
      const instructions = s.system_instructions.filter(Boolean).join('\n');
      if (own != null || s.request_model != null || instructions || s.tool_definitions) {
        out.push(message('agent_start', head(s, agent, ver), {
          model: s.request_model,
          system_instructions: instructions || null,
          tool_definitions: s.tool_definitions,
          status: s.status_code,
        }));
      }
      if (s.compaction_summary || (s.compaction_items_before ?? 0) > 0) {
        out.push(message('context_compacted', head(s, agent, ver), {
          compaction_summary: s.compaction_summary,
          compaction_items_before: s.compaction_items_before,
          compaction_items_after: s.compaction_items_after,
        }));
      }
      const before = assistants;
      walkChildren(s, agent, ver, depth);
      // An agent span usually mirrors its last model call's output: emit it only when nothing inside did.
      if (assistants === before) emitAssistant(s, agent, ver, usageTotals(subtree(tree, s), tree));
      return;
    }
    const agent = label ?? s.agent_name;
    const ver = label != null ? version : s.agent_version;
    if (op === 'execute_tool') {
      out.push(message('tool_call', head(s, agent, ver), {
        tool_name: s.tool_name ?? nameSuffix(s.span_name, 'execute_tool'),
        tool_arguments: s.tool_call_arguments,
        tool_result: s.tool_call_result,
        duration_ms: durationMs(s.start_ns, s.end_ns),
        status: s.status_code,
        content_refs: s.content_refs ?? [],
      }));
      walkChildren(s, agent, ver, depth);
      return;
    }
    const userText = trailingUserText(s.input_messages);
    if (userText && userText !== lastUser) {
      out.push(message('user_message', { ...head(s, 'User', null) }, { text: userText, content_refs: [] }));
      lastUser = userText;
    }
    const before = assistants;
    walkChildren(s, agent, ver, depth);
    // Decision (docs/chat.md): a wrapper span (e.g. Vercel's ai.generateText) repeating the output of
    // a call inside it is the same message; emit it once, like a mirrored agent output.
    if (assistants > before && outputText(s.output_messages) === lastAssistantText) return;
    emitAssistant(s, agent, ver, null);
  };

  for (const r of tree.roots) visit(r, null, null, 1);

  if (!out.some((m) => m.type === 'user_message')) {
    const agents = visited.filter((s) => opOf(s) === 'invoke_agent');
    const others = visited.filter((s) => opOf(s) !== 'invoke_agent');
    for (const group of [agents, others]) {
      const found = [...group].reverse().find((s) => lastUserText(s.input_messages));
      if (found) {
        out.unshift(message('user_message', {
          span_id: null, agent_name: 'User', agent_version: null, status_code: null,
          started_at: found.start_ns == null ? null : isoFromNs(found.start_ns),
        }, { text: lastUserText(found.input_messages)!, content_refs: [] }));
        break;
      }
    }
  }
  if (out[0]?.type === 'agent_start' && out[1]?.type === 'user_message') [out[0], out[1]] = [out[1], out[0]];
  return out;
}
