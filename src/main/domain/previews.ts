/**
 * Message previews (semantics §7), for every adapter and every place that shows one (the
 * conversations list, group rows of the spans query): the first user text of a span's input
 * messages, and the non-user texts of its output messages joined by a blank line. Trimmed and cut at
 * 280 characters (code points) with '…' appended when longer; an output preview of only blanks is
 * none.
 */

export const PREVIEW_CHARS = 280;

type Msg = { role?: string; content?: string };

export function cutPreview(text: string): string {
  const t = text.trim();
  const chars = Array.from(t);
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS).join('')}…` : t;
}

/** The preview text of a span's messages, uncut: first user text of the input, non-user texts of the output. */
export function previewOf(messages: readonly Msg[], which: 'input' | 'output'): string | null {
  if (which === 'input') return messages.find((m) => m.role === 'user' && m.content)?.content ?? null;
  const text = messages.filter((m) => m.role !== 'user' && m.content).map((m) => m.content).join('\n\n');
  return text || null;
}

/** A preview as stored and shown: cut; an output preview of only blanks is none. */
export function previewCut(text: string | null, which: 'input' | 'output'): string | null {
  if (which === 'input') return text ? cutPreview(text) : null;
  return text?.trim() ? cutPreview(text) : null;
}

/** The preview of a span's messages as stored and shown. */
export function messagesPreview(messages: readonly Msg[], which: 'input' | 'output'): string | null {
  return previewCut(previewOf(messages, which), which);
}
