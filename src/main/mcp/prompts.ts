/**
 * Prompts: "Debug this conversation" and "Why did this tool fail" — the investigations people ask a
 * coding agent for, written as the steps over this server's tools.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';

const user = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'debug_conversation',
    {
      title: 'Debug this conversation',
      description: 'Find what went wrong in one conversation of Loupe, where, and why',
      argsSchema: z.object({ conversation_id: z.string().min(1).describe('the conversation (or trace) id, from search_conversations') }),
    },
    ({ conversation_id }) =>
      user(
        `Debug the agent conversation "${conversation_id}" recorded in Loupe.\n` +
          `1. Read it with get_conversation {"conversation_id": "${conversation_id}"} (follow \`next\` until the end).\n` +
          '2. For every step marked ERROR, or an answer that does not do what the user asked, open its span with get_span and read the ' +
          'error, the tool arguments and result, and the model\'s input.\n' +
          '3. If a turn is slow or expensive, read its span tree with get_trace (errors_first: true).\n' +
          '4. If an earlier or similar run worked, compare the two turns with compare.\n' +
          'Answer with: what went wrong, in which turn and span (ids), the cause as the trace shows it, and a concrete fix.',
      ),
  );
  server.registerPrompt(
    'why_tool_failed',
    {
      title: 'Why did this tool fail',
      description: 'Explain the failures of one tool (or the most frequent failing tool) from the recorded traces',
      argsSchema: z.object({
        tool: z.string().optional().describe('the tool\'s name; default: the tool that fails most'),
        conversation_id: z.string().optional().describe('only this conversation'),
      }),
    },
    ({ tool, conversation_id }) =>
      user(
        `Find out why ${tool ? `the tool "${tool}"` : 'the most frequently failing tool'} failed${conversation_id ? ` in conversation "${conversation_id}"` : ''}, using Loupe.\n` +
          `1. ${conversation_id ? `Read the conversation with get_conversation {"conversation_id": "${conversation_id}"} and find the failing tool call.` : 'Call recent_errors to see failing spans grouped by error type and tool, with example ids.'}\n` +
          '2. Open an example failing span with get_span: read the error type and message, the exception and stack trace, and the tool\'s arguments.\n' +
          '3. Read the conversation around it (get_conversation with the example\'s conversation id) to see what the agent asked and did next.\n' +
          `4. Check whether it always fails: query_spans with filter {"$expr":{"$eq":[{"$getField":"tool_name"},{"$literal":"${tool ?? '<tool>'}"}]}} and group_by ["status_code","error_type"].\n` +
          'Answer with the cause, how often it happens, the ids of one example, and what to change (the tool, its arguments, or the agent\'s instructions).',
      ),
  );
}
