/**
 * Reading SFT training data from a JSONL file of `{messages, tools}` lines, safely: only a regular
 * file (a named pipe, device or directory is refused before any byte is read — opening uses
 * O_NONBLOCK so a pipe cannot hang the reader), at most `maxBytes`, read in chunks, every line
 * checked. Errors name the file (by the label the caller gives) and the line, never its content:
 * a JSON syntax error reports the character position only.
 */
import fs from 'node:fs';
import { z } from 'zod';
import type { SftExample } from './engine.js';

const Line = z.looseObject({
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
        content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
      }),
    )
    .min(1),
  tools: z.array(z.unknown()).nullable().optional(),
});

/** Default cap on training data files (and dataset uploads). */
export const MAX_SFT_FILE_BYTES = 256 * 1024 * 1024;

const CHUNK = 1024 * 1024;

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Opens `file` for reading if it is a regular file within the cap; throws a message naming `label`. */
export async function openRegularFile(file: string, label: string, maxBytes: number): Promise<{ handle: fs.promises.FileHandle; size: number }> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`cannot read training data ${label}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code}`, { cause: err });
  }
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw new Error(`training data ${label} is ${kindOf(st)}; only regular files are read`);
  }
  if (st.size > maxBytes) {
    await handle.close();
    throw new Error(`training data ${label} is ${st.size} bytes; the limit is ${maxBytes} bytes`);
  }
  return { handle, size: st.size };
}

/** Position of a JSON syntax error, from the parser's message (the message itself may quote the input). */
function jsonErrorPosition(err: unknown): string {
  const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
  return m ? ` at character ${Number(m[1]) + 1}` : '';
}

/** Checks one line; returns the example or throws `<label> line N: <field>: <what>`. */
export function parseSftLine(raw: string, lineNo: number, label: string): SftExample {
  const where = `${label} line ${lineNo}`;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new Error(`${where}: not valid JSON${jsonErrorPosition(err)}`, { cause: err });
  }
  const parsed = Line.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${where}: ${issue.path.length ? issue.path.join('.') : 'line'}: ${issue.message}`);
  }
  if (!parsed.data.messages.some((m) => m.role === 'assistant')) throw new Error(`${where}: messages: no assistant message to train on`);
  return { messages: parsed.data.messages as SftExample['messages'], tools: parsed.data.tools ?? undefined };
}

/**
 * Every line of a JSONL file, in chunks (the caller's event loop keeps turning between them).
 * `onLine(text, lineNo)` gets each non-blank line.
 */
export async function forEachLine(handle: fs.promises.FileHandle, onLine: (text: string, lineNo: number) => void): Promise<void> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const buf = Buffer.allocUnsafe(CHUNK);
  let carry = '';
  let lineNo = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
    const text = carry + decoder.decode(buf.subarray(0, bytesRead), { stream: bytesRead > 0 });
    const parts = text.split('\n');
    carry = bytesRead > 0 ? parts.pop()! : '';
    for (const p of parts) {
      lineNo++;
      const line = p.trim();
      if (line) onLine(line, lineNo);
    }
    if (bytesRead === 0) return;
  }
}

/** Reads and checks a whole SFT file; the first bad line fails it. */
export async function readSftFile(file: string, label: string, maxBytes = MAX_SFT_FILE_BYTES): Promise<SftExample[]> {
  const { handle } = await openRegularFile(file, label, maxBytes);
  const out: SftExample[] = [];
  try {
    await forEachLine(handle, (line, n) => out.push(parseSftLine(line, n, label)));
  } finally {
    await handle.close();
  }
  if (out.length === 0) throw new Error(`${label}: no training examples (the file is empty)`);
  return out;
}
