/**
 * Which project a tool reads when the agent names none. Agents rarely know Loupe's project ids, so
 * a list tool reads the most recently active project and says which others exist; a tool given an
 * id (conversation, trace, span) looks for it in each project, most recent first.
 */
import { ToolError, type ToolEnv } from './tool.js';

/** How many projects an id is looked for in, at most, when none is named. */
export const MAX_PROJECTS_SEARCHED = 20;

export async function projectIds(env: ToolEnv): Promise<string[]> {
  const { projects } = await env.caller.call('system.projects', {}, env.signal);
  return projects.map((p) => p.project_id);
}

const NO_DATA = 'Loupe holds no traces yet: load the demo (`loupe demo`, or "Load demo data" in the app) or import trace files, then ask again';

export interface ProjectChoice {
  project: string;
  /** The other projects there are (when none was named), most recent first. */
  others: string[];
}

/** The named project (it must exist), else the most recently active one. */
export async function chooseProject(env: ToolEnv, asked: string | undefined): Promise<ProjectChoice> {
  const all = await projectIds(env);
  if (asked !== undefined) {
    if (!all.includes(asked)) {
      throw new ToolError(
        all.length ? `argument "project": no project "${asked}"; projects: ${all.slice(0, 20).map((p) => `"${p}"`).join(', ')}` : NO_DATA,
      );
    }
    return { project: asked, others: [] };
  }
  if (!all.length) throw new ToolError(NO_DATA);
  return { project: all[0]!, others: all.slice(1) };
}

/**
 * Looks an id up with `probe` in the named project, else in each project (most recent first); the
 * first project whose probe answers wins. A ToolError naming the argument when none has it.
 */
export async function findInProjects<T>(env: ToolEnv, asked: string | undefined, what: string, probe: (project: string) => Promise<T | null>): Promise<{ project: string; value: T }> {
  const candidates = asked !== undefined ? (await chooseProject(env, asked)).project : null;
  const list = candidates !== null ? [candidates] : (await projectIds(env)).slice(0, MAX_PROJECTS_SEARCHED);
  if (!list.length) throw new ToolError(NO_DATA);
  for (const project of list) {
    const value = await probe(project);
    if (value !== null) return { project, value };
  }
  throw new ToolError(`${what} was not found in ${asked !== undefined ? `project "${asked}"` : list.length === 1 ? `project "${list[0]}"` : `any of the ${list.length} projects (${list.slice(0, 5).map((p) => `"${p}"`).join(', ')}${list.length > 5 ? ', …' : ''})`}; search_conversations or recent_errors give ids that exist`);
}
