/**
 * File-level facts about checkpoint directories that the main thread needs without loading
 * TensorFlow.js: how a checkpoint is written (a temp sibling renamed into place) and how to clear
 * what a crash mid-save leaves behind.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A checkpoint `<dir>` is written as `<dir>.tmp-<pid>-<time>` and renamed into place when complete. */
export const tempCheckpointDir = (dir: string): string => `${dir}.tmp-${process.pid}-${Date.now()}`;
const TEMP = /\.tmp-\d+-\d+$/;

/**
 * Removes temp checkpoint folders under `parent` (a crash between writing and renaming leaves one).
 * Only safe when no job of this process is writing there: call at start, before jobs run.
 */
export function removeTempCheckpoints(parent: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return [];
  }
  const removed = names.filter((n) => TEMP.test(n));
  for (const n of removed) fs.rmSync(path.join(parent, n), { recursive: true, force: true });
  return removed;
}
