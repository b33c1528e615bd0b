/**
 * The error a bubble shows (issue 10 item 5; decision docs/chat.md "Errors in bubbles"): emitters put
 * whole stack traces into the span's status message (a JS `err.stack`, a Python traceback, a Java /
 * .NET trace). The bubble's headline is the message without the trace; the whole text stays
 * available as `error_detail` (and in the span panel), never as the headline.
 */

/** A stack frame line: JS / Java / .NET (`    at ...`, `\tat ...`), Python (`  File "x.py", line 3`). */
const FRAME = /^\s+(at\s|File ")/;
const PY_TRACEBACK = /^Traceback \(most recent call last\):\s*$/;

export interface ErrorText {
  /** The message: what went wrong, without the trace. */
  message: string | null;
  /** The whole text as recorded, when a trace was cut from the message; null otherwise. */
  detail: string | null;
}

export function splitError(text: string | null | undefined): ErrorText {
  if (text == null || text === '') return { message: text ?? null, detail: null };
  const lines = text.split('\n');
  const py = lines.findIndex((l) => PY_TRACEBACK.test(l));
  if (py >= 0) {
    // Python puts the message last: the final line that is not part of a frame (`ValueError: boom`).
    const before = lines.slice(0, py).join('\n').trim();
    const last = [...lines.slice(py + 1)].reverse().find((l) => l.trim() && !/^\s/.test(l));
    return { message: before || last?.trim() || text, detail: text };
  }
  const frame = lines.findIndex((l) => FRAME.test(l));
  if (frame < 0) return { message: text, detail: null };
  // The line before the first frame is the trace's own header (`Error: boom`, `java.io.IOException: boom`):
  // the message is what precedes it, else that header.
  const header = frame > 0 ? lines[frame - 1]!.trim() : '';
  const before = lines.slice(0, Math.max(0, frame - 1)).join('\n').trim();
  return { message: before || header || text, detail: text };
}
