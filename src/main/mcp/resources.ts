/**
 * Resource templates: `loupe://conversation/{id}` (the conversation's first turns, as get_conversation
 * reads them) and `loupe://trace/{id}` (the trace's span tree, as get_trace's first page). Listing
 * gives the newest conversations of the most recently active project.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import type { Caller } from './caller.js';
import { chooseProject } from './projects.js';
import { ToolError, type ToolEnv } from './tool.js';
import { getConversation } from './tools/get-conversation.js';
import { getTrace } from './tools/get-trace.js';

const LISTED = 20;

async function readAs(uri: URL, id: unknown, env: ToolEnv, run: (id: string) => Promise<{ text: string }>) {
  const value = Array.isArray(id) ? id[0] : id;
  if (typeof value !== 'string' || !value) throw new ResourceNotFoundError(uri.href, `no id in ${uri.href}`);
  try {
    const answer = await run(decodeURIComponent(value));
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: answer.text }] };
  } catch (err) {
    if (err instanceof ToolError) throw new ResourceNotFoundError(uri.href, err.message);
    throw err;
  }
}

export function registerResources(server: McpServer, caller: Caller): void {
  const env = (signal?: AbortSignal): ToolEnv => ({ caller, signal });
  server.registerResource(
    'conversation',
    new ResourceTemplate('loupe://conversation/{id}', {
      list: async () => {
        let project: string;
        try {
          project = (await chooseProject(env(), undefined)).project;
        } catch {
          return { resources: [] };
        }
        const page = await caller.call('conversations.list', { project_id: project, sort_by: [{ field: 'last_activity', direction: 'desc' }], limit: LISTED });
        return {
          resources: page.conversations.map((c) => ({
            uri: `loupe://conversation/${encodeURIComponent(c.conversation_id)}`,
            name: c.title.slice(0, 80),
            description: `${c.turn_count} turns, ${c.error_count} errors, last activity ${c.last_activity ?? '–'} (project ${project})`,
            mimeType: 'text/plain',
          })),
        };
      },
    }),
    { title: 'A conversation as a chat', description: 'A conversation of Loupe, turn by turn (the first turns; get_conversation reads on)', mimeType: 'text/plain' },
    (uri, vars, ctx) =>
      readAs(uri, vars.id, env(ctx.mcpReq.signal), (id) => getConversation.run({ conversation_id: id, turn_from: 0, step_from: 0, limit: 5 }, env(ctx.mcpReq.signal))),
  );
  server.registerResource(
    'trace',
    new ResourceTemplate('loupe://trace/{id}', { list: undefined }),
    { title: 'A trace\'s span tree', description: 'A trace of Loupe as its span tree (the first page; get_trace reads on)', mimeType: 'text/plain' },
    (uri, vars, ctx) => readAs(uri, vars.id, env(ctx.mcpReq.signal), (id) => getTrace.run({ trace_id: id, errors_first: false, limit: 200 }, env(ctx.mcpReq.signal))),
  );
}
