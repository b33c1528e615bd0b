/**
 * The scores a view shows as badges: one `scores.query` page (up to 1,000, newest first) of a
 * conversation or a trace, and the names of a project's scores (for the score filters and builders).
 */
import { useMemo } from 'react';
import { useOp } from '../api/query';
import type { Score } from './format';

const NONE: Score[] = [];

export function useScoresOf(project: string, of: { conversation_id: string } | { trace_id: string } | null): Score[] {
  const { data } = useOp('scores.query', of ? { project_id: project, ...of, limit: 1000 } : null);
  return data?.scores ?? NONE;
}

/** Score names of a project (from the per-agent summaries), sorted. */
export function useScoreNames(project: string): string[] {
  const { data } = useOp('scores.summary', { project_id: project, by: 'agent' });
  return useMemo(() => [...new Set((data?.summaries ?? []).map((s) => s.name))].sort(), [data]);
}
