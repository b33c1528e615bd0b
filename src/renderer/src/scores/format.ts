/**
 * How a score reads in a badge or a list cell (issue 20): "helpful 0.20", "no-loops ✗", "tone: rude",
 * and whether it reads as bad (tinted like an error). A `failures` score (failure signatures, kept by
 * the clusters computation) shows its signature; a clean turn's `failures` 0 shows nothing.
 */
import type { OpOutput } from '../../../shared/contract/index';

export type Score = OpOutput<'scores.query'>['scores'][number];
export type ScoreSummary = NonNullable<OpOutput<'conversations.list'>['conversations'][number]['scores']>[number];

/** The score name the failure-cluster signatures are kept under (service/evals/clusters.ts FAILURES). */
export const FAILURES = 'failures';
/** At or below this a number reads as bad (the clusters' "low score" threshold, docs/evals.md). */
export const LOW = 0.5;

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** The badge text, or null when the score says nothing worth a badge (a clean turn's `failures` 0). */
export function scoreText(s: Pick<Score, 'name' | 'value' | 'label'>): string | null {
  if (s.name === FAILURES) return s.label ? `failure: ${s.label}` : null;
  const parts: string[] = [s.name];
  if (typeof s.value === 'boolean') parts.push(s.value ? '✓' : '✗');
  else if (typeof s.value === 'number') parts.push(num(s.value));
  if (s.label) parts.push(s.label);
  return parts.join(s.label && s.value === null ? ': ' : ' ');
}

export function scoreIsBad(s: Pick<Score, 'name' | 'value' | 'label'>): boolean {
  if (s.name === FAILURES) return !!s.label;
  if (typeof s.value === 'boolean') return !s.value;
  if (typeof s.value === 'number') return s.value <= LOW;
  return false;
}

/** Tooltip: who scored it, how, why. */
export function scoreTitle(s: Score): string {
  const who = s.source === 'human' ? `by ${s.creator ?? 'a person'}` : `${s.source} ${s.scorer ?? ''}${s.scorer_version ? ` ${s.scorer_version}` : ''}`.trim();
  return [`${s.name} (${s.target}, ${who}, ${s.created_at})`, s.explanation, s.correction ? `correction: ${s.correction}` : null].filter(Boolean).join('\n');
}

/** A list row's summary of one score name: "helpful 0.42 (3)", top labels, or failure signatures counted. */
export function summaryText(s: ScoreSummary): string | null {
  const labels = Object.entries(s.labels).sort((a, b) => b[1] - a[1]);
  if (s.name === FAILURES) {
    const n = labels.reduce((a, [, c]) => a + c, 0);
    return n ? `${n} failure${n === 1 ? '' : 's'}` : null;
  }
  const count = s.count > 1 ? ` (${s.count})` : '';
  if (s.mean !== null) return `${s.name} ${num(s.mean)}${count}`;
  if (labels.length) return `${s.name}: ${labels[0]![0]}${labels.length > 1 ? ` +${labels.length - 1}` : ''}${count}`;
  return `${s.name}${count}`;
}

export function summaryIsBad(s: ScoreSummary): boolean {
  if (s.name === FAILURES) return Object.keys(s.labels).length > 0;
  return s.mean !== null && s.mean <= LOW;
}

/** Groups scores by a key (trace_id, span_id); scores without one are left out. */
export function scoresBy(scores: readonly Score[], key: 'trace_id' | 'span_id', only?: (s: Score) => boolean): Map<string, Score[]> {
  const out = new Map<string, Score[]>();
  for (const s of scores) {
    const k = s[key];
    if (!k || (only && !only(s))) continue;
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(s);
  }
  return out;
}
