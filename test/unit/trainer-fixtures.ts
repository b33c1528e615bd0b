/** Shared set-up for the trainer tests: a temp checkpoint root and the tiny Q→A data set. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChatMessage, SftExample } from '../../src/main/training/engine.js';

export const TEST_MODEL = 'loupe-test-bytes';

export function tempRoot(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `loupe-trainer-${tag}-`));
}

/** Eight short question → answer pairs (as in a small SFT JSONL file). */
export const QA: [string, string][] = [
  ['What is 2+2?', '4'],
  ['Capital of France?', 'Paris'],
  ['Color of the sky?', 'blue'],
  ['Opposite of hot?', 'cold'],
  ['First letter?', 'A'],
  ['Largest planet?', 'Jupiter'],
  ['Frozen water?', 'ice'],
  ['Days in a week?', 'seven'],
];

export function user(content: string): ChatMessage[] {
  return [{ role: 'user', content }];
}

export function qaExamples(repeats: number): SftExample[] {
  const out: SftExample[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const [q, a] of QA) out.push({ messages: [...user(q), { role: 'assistant', content: a }] });
  }
  return out;
}
