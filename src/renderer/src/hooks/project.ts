/**
 * The current project comes from the URL (`#/p/<project>/...`) so every view is a deep link; the UI
 * store remembers the last one for bare routes. `projectPath` builds links inside a project.
 */
import { useParams } from 'react-router-dom';
import { useUi } from '../stores/ui';

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
