import { z } from 'zod';
import { op } from './define.js';

/**
 * The MCP server's set-up for people (issue 17): the configuration of Claude Code, Codex and Cursor
 * for this Loupe, over HTTP and stdio (shared/mcp-config.ts writes them; no key is in them).
 */
export const McpClientConfigRow = z.object({
  client: z.enum(['Claude Code', 'Codex', 'Cursor']),
  transport: z.enum(['http', 'stdio']),
  where: z.string(),
  text: z.string(),
});

export const mcpOps = {
  'mcp.config': op({
    method: 'GET',
    path: '/app/mcp-config',
    auth: 'none',
    summary: "This Loupe's MCP server: its HTTP address, the stdio command, and ready-to-paste configuration for coding agents",
    input: z.strictObject({}),
    output: z.object({
      http_url: z.string(),
      command: z.array(z.string()),
      data_dir: z.string(),
      configs: z.array(McpClientConfigRow),
    }),
  }),
} as const satisfies Record<string, ReturnType<typeof op>>;
