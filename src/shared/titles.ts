/**
 * Titles of conversations and traces (issue 18 item 4, docs/ui.md "Titles"): a row or a header is
 * named by what a reader recognises, never by an SDK's placeholder, an unformatted message template
 * or a JSON document.
 *
 * - A trace: its service name when known, with its root operation ("checkout-api: invoke_agent
 *   support"); else its agent; else its root operation. OpenTelemetry SDKs name a service they were
 *   not told as `unknown_service` or `unknown_service:<executable>` — that is not a known service.
 * - An operation named by a message template (Logfire spans: "Message with {request_data[model]!r}")
 *   shows its text with each placeholder as "…", unless an agent name is there to use instead.
 * - A conversation: its name; else its first user message unless that is a JSON document (an
 *   emitter's raw input, not something a person typed); else its agent; else its id.
 */

const UNKNOWN_SERVICE = /^unknown_service(:.*)?$/i;
const PLACEHOLDER = /\{[^{}]*\}/;

/** A service name worth showing: null for missing, blank and the SDKs' `unknown_service[:…]`. */
export function knownService(service: string | null | undefined): string | null {
  const s = service?.trim();
  return s && !UNKNOWN_SERVICE.test(s) ? s : null;
}

/** True for text that is a JSON object or array (a raw payload, not a title). */
export function isJsonDocument(text: string): boolean {
  const t = text.trim();
  if (!((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']')))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** An operation name for a title: a message template's placeholders as "…"; a JSON document is no name. */
export function operationTitle(name: string | null | undefined): string | null {
  const n = name?.trim();
  if (!n || isJsonDocument(n)) return null;
  return PLACEHOLDER.test(n) ? n.replace(/\{[^{}]*\}/g, '…') : n;
}

export interface TraceTitle {
  /** The known service, shown first (bold in the list), or null. */
  service: string | null;
  /** What follows it: the root operation, or the agent when there is no service. */
  name: string | null;
}

/** The title of a trace from its service, root operation and agent (see the rules above). */
export function traceTitle(t: { service?: string | null; root?: string | null; agent?: string | null }): TraceTitle {
  const service = knownService(t.service);
  const op = operationTitle(t.root);
  const templated = !!t.root && PLACEHOLDER.test(t.root);
  const agent = t.agent?.trim() || null;
  if (service) return { service, name: (templated && agent) || op || agent };
  return { service: null, name: agent ?? op };
}

/** The text of a trace title on one line ("service: name", or the name alone). */
export const traceTitleText = (t: TraceTitle): string | null => (t.service && t.name ? `${t.service}: ${t.name}` : t.service ?? t.name);

/** The title of a conversation from its name, first user message and agents. */
export function conversationTitle(c: { name?: string | null; firstMessage?: string | null; agents?: readonly string[]; id: string }): string {
  const name = c.name?.trim();
  if (name && !isJsonDocument(name)) return name;
  const first = c.firstMessage?.trim();
  if (first && !isJsonDocument(first)) return first;
  return c.agents?.find((a) => a.trim()) ?? c.id;
}

/**
 * The title of a Conversations-list row, as the page shows it and the API returns it (`title`, set in
 * domain/conversation-row.ts for both stores): a conversation by `conversationTitle`; a trace without
 * a conversation id by its root span's "service: operation" (`traceTitle`), else "trace <id>".
 */
export function listRowTitle(r: {
  kind: 'conversation' | 'trace';
  conversation_id: string;
  conversation_name: string | null;
  first_message: { text: string } | null;
  agent_names: readonly string[];
  trace_root: { service_name: string | null; span_name: string | null } | null;
}): string {
  if (r.kind === 'conversation') return conversationTitle({ name: r.conversation_name, firstMessage: r.first_message?.text, agents: r.agent_names, id: r.conversation_id });
  const root = r.trace_root;
  const text = root ? traceTitleText(traceTitle({ service: root.service_name, root: root.span_name, agent: r.agent_names[0] })) : null;
  return text ?? `trace ${r.conversation_id}`;
}
