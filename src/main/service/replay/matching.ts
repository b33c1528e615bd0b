/**
 * Answering the new model's tool calls from the recording (docs/replay.md "How tool results are
 * matched"): the same tool with the same arguments (compared as JSON values, key order and spacing
 * ignored) first; then the same tool with both sides passed through the tool's declared normaliser
 * (`*` for every tool). No match is a divergence: `unseen_tool` when the recording never called that
 * tool, `unseen_arguments` when it did, never with these arguments.
 */
import type { z } from 'zod';
import type { ArgumentNormalizer } from '../../../shared/contract/replays.js';
import type { RecordedToolCall } from './recording.js';

export type Normalizer = z.output<typeof ArgumentNormalizer>;

export type Match =
  | { kind: 'exact' | 'normalized'; result: string }
  | { kind: 'unseen_tool' | 'unseen_arguments' };

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return s;
  }
};

/** A value in one canonical text: object keys sorted, so equal JSON values give equal texts. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export function normalize(v: unknown, n: Normalizer): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, n));
  if (v && typeof v === 'object') {
    const ignore = new Set(n.ignore_keys);
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !ignore.has(k)).map(([k, x]) => [k, normalize(x, n)]));
  }
  if (typeof v === 'string') {
    let s = v;
    if (n.collapse_whitespace) s = s.trim().replace(/\s+/g, ' ');
    if (n.case_insensitive) s = s.toLowerCase();
    if (n.numeric_strings && s.trim() !== '' && Number.isFinite(Number(s))) return Number(s);
    return s;
  }
  return v;
}

/** The recording's tool calls, looked up by the new model's calls. */
export class ToolBook {
  private readonly exact = new Map<string, string>();
  private readonly byTool = new Map<string, RecordedToolCall[]>();

  constructor(
    calls: RecordedToolCall[],
    private readonly normalizers: Record<string, Normalizer>,
  ) {
    for (const c of calls) {
      if (c.result === null) continue;
      const key = `${c.name}\u0000${canonical(parse(c.arguments))}`;
      if (!this.exact.has(key)) this.exact.set(key, c.result);
      const list = this.byTool.get(c.name) ?? [];
      list.push(c);
      this.byTool.set(c.name, list);
    }
  }

  find(name: string, args: string): Match {
    const value = parse(args);
    const hit = this.exact.get(`${name}\u0000${canonical(value)}`);
    if (hit !== undefined) return { kind: 'exact', result: hit };
    const list = this.byTool.get(name);
    if (!list?.length) return { kind: 'unseen_tool' };
    const n = this.normalizers[name] ?? this.normalizers['*'];
    if (n) {
      const want = canonical(normalize(value, n));
      const found = list.find((c) => canonical(normalize(parse(c.arguments), n)) === want);
      if (found) return { kind: 'normalized', result: found.result! };
    }
    return { kind: 'unseen_arguments' };
  }
}
