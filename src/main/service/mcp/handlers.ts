import type { Handlers } from '../handler-types.js';
import { unavailable } from '../../../shared/errors.js';
import { mcpConfigView } from '../../mcp/config.js';

/** Handler of the MCP set-up operation (contract/mcp.ts); the MCP server itself is src/main/mcp/. */
export const mcpHandlers = {
  'mcp.config': (_input, ctx) => {
    if (!ctx.baseUrl) throw unavailable('This Loupe is not listening yet');
    return mcpConfigView(ctx.baseUrl, ctx.dataDir);
  },
} satisfies Partial<Handlers>;
