/**
 * SFT training data (semantics §9.4): a `file://` URL or absolute path of a JSONL file whose lines
 * are `{messages, tools}`. Every line is checked before training starts; the first bad one fails the
 * job with a message naming the file, the line number and what is wrong.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { SftExample } from '../../training/engine.js';

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

/** The local file a training_data_url names; throws a readable error for anything else. */
export function dataFilePath(url: string): string {
  if (url.startsWith('file://')) return fileURLToPath(url);
  if (path.isAbsolute(url)) return url;
  throw new Error(`training_data_url must be a file:// URL or an absolute path, got "${url}"`);
}

export function readSftExamples(url: string): SftExample[] {
  const file = dataFilePath(url);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read training data ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const out: SftExample[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const where = `${file} line ${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: not valid JSON (${(err as Error).message})`);
    }
    const parsed = Line.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${where}: ${issue.path.length ? issue.path.join('.') : 'line'}: ${issue.message}`);
    }
    if (!parsed.data.messages.some((m) => m.role === 'assistant')) throw new Error(`${where}: messages: no assistant message to train on`);
    out.push({ messages: parsed.data.messages as SftExample['messages'], tools: parsed.data.tools ?? undefined });
  });
  if (out.length === 0) throw new Error(`${file}: no training examples (the file is empty)`);
  return out;
}
