/**
 * The MCP server: one McpServer per serving unit (an HTTP request, a stdio connection), built by
 * `mcpServerFactory` over a Caller. Every tool of tools/index.ts is registered with its input and
 * output schemas and its byte budget in its description; a tool's failure is an `isError` result
 * (errors.ts), never a protocol error. Resources and prompts: resources.ts, prompts.ts.
 */
import { McpServer, type McpRequestContext, type McpServerFactory } from '@modelcontextprotocol/server';
import { appInfo } from '../settings/app-root.js';
import { answerBytes, budgetText } from './budget.js';
import type { Caller } from './caller.js';
import { errorText } from './errors.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { TOOLS } from './tools/index.js';

export const SERVER_NAME = 'loupe';

const INSTRUCTIONS =
  'Loupe holds the traces of AI agents recorded on this machine: conversations (agent runs), their turns (traces), spans, agents, ' +
  'and training jobs. Start with search_conversations (by words said, agent, failure or time) or recent_errors; open a conversation with ' +
  'get_conversation, its turn\'s span tree with get_trace, one span with get_span. Answers are bounded: follow next_cursor / next to read on.';

/** Logs a tool whose answer left its budget: a defect of that tool's fitting, visible in tests and logs. */
export type OverBudget = (tool: string, bytes: number, budget: number) => void;

export function mcpServerFactory(callerOf: (request: McpRequestContext) => Caller, opts: { onOverBudget?: OverBudget } = {}): McpServerFactory {
  return (request) => {
    const caller = callerOf(request);
    const server = new McpServer(
      { name: SERVER_NAME, title: 'Loupe', version: appInfo().version },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
    );
    for (const t of TOOLS) {
      server.registerTool(
        t.name,
        {
          title: t.title,
          description: `${t.description} Answers are at most ${budgetText(t.budget)} (text and structured content together) and say when they were cut.`,
          inputSchema: t.input,
          outputSchema: t.output,
          annotations: { title: t.title, readOnlyHint: !t.write, destructiveHint: false, idempotentHint: !t.write, openWorldHint: false },
        },
        async (args: unknown, ctx) => {
          try {
            const answer = await t.run(args as never, { caller, signal: ctx.mcpReq.signal });
            const size = answerBytes(answer);
            if (size > t.budget) opts.onOverBudget?.(t.name, size, t.budget);
            return { content: [{ type: 'text' as const, text: answer.text }], structuredContent: answer.structured };
          } catch (err) {
            return { content: [{ type: 'text' as const, text: errorText(t.name, err, t.argOf) }], isError: true };
          }
        },
      );
    }
    registerResources(server, caller);
    registerPrompts(server);
    return server;
  };
}
