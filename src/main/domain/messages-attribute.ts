/**
 * The OTel GenAI JSON text of normalized messages (`gen_ai.input.messages` / `gen_ai.output.messages`
 * as emitters that follow the convention print them): what a stored span's raw form puts back in
 * place of a message attribute it left out, and what the ingest side compares an attribute with to
 * know that leaving it out loses nothing (service/ingest/history.ts, store/sqlite/body-codec.ts).
 */
import type { SpanMessage } from './span.js';

export function messagesAttributeText(messages: readonly SpanMessage[]): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: m.parts, ...(m.finish_reason ? { finish_reason: m.finish_reason } : {}) })));
}

/**
 * Two JSON array texts joined into one (`[a,b]` + `[c]` → `[a,b,c]`); either may be empty (`[]`).
 * The input messages of a span that continues another's are stored as the messages after the other's:
 * reading puts them back together with this.
 */
export function joinJsonArrays(texts: readonly string[]): string {
  let out = '';
  for (const t of texts) {
    const inner = t.slice(1, -1);
    if (!inner.trim()) continue;
    out += out ? `,${inner}` : inner;
  }
  return `[${out}]`;
}

/**
 * What a raw span's message attribute holds in place of its text when it was left out (the messages
 * kept beside it print it back exactly): `{"key":"gen_ai.input.messages","value":{"loupe":"input_messages"}}`.
 */
export const leftOutValue = (field: 'input_messages' | 'output_messages'): { loupe: string } => ({ loupe: field });
