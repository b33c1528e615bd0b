/**
 * The current project comes from the URL (`#/p/<project>/...`) so every view is a deep link; the UI
 * store remembers the last one for bare routes. `projectPath` builds links inside a project.
 */
import { useParams } from 'react-router-dom';
import { useUi } from '../stores/ui';
import { useOp } from '../api/query';

export const DEFAULT_PROJECT = 'local/default';

export function useProject(): string {
  const { project } = useParams();
  const remembered = useUi((s) => s.project);
  return project ?? remembered ?? DEFAULT_PROJECT;
}

/** `projectPath('local/default', 'traces', id)` → `/p/local%2Fdefault/traces/<id>`. */
export function projectPath(project: string, ...rest: string[]): string {
  return ['/p', encodeURIComponent(project), ...rest.map((s) => encodeURIComponent(s))].join('/');
}

/**
 * Spans stored in a project (system.projects, the same cached answer as the sidebar's switcher);
 * null until known. An empty view in a project that has spans is not an empty project.
 */
export function useProjectSpanCount(project: string): number | null {
  const { data } = useOp('system.projects', {});
  if (!data) return null;
  return data.projects.find((p) => p.project_id === project)?.span_count ?? 0;
}
