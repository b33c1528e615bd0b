/**
 * What a person pastes into a coding agent to use Loupe's MCP server (Settings → Coding agents,
 * `loupe mcp --print-config`): the HTTP address of a running Loupe and the stdio command, for Claude
 * Code, Codex and Cursor (shared/mcp-config.ts writes the texts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { mcpClientConfigs, type McpConfigInput } from '../../shared/mcp-config.js';
import { appInfo } from '../settings/app-root.js';

export const MCP_PATH = '/mcp';

/**
 * The command that runs this package's CLI: `loupe` when that name on PATH is this package's
 * bin/loupe.js (an installed or linked package), else `node <package>/bin/loupe.js` (a checkout, or
 * the desktop app, whose executable is Electron rather than Node).
 */
export function loupeCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const bin = path.join(appInfo().root, 'bin', 'loupe.js');
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  const mine = real(bin);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && mine && real(path.join(dir, 'loupe')) === mine) return ['loupe'];
  }
  return ['node', bin];
}

export function mcpConfigView(baseUrl: string, dataDir: string) {
  const input: McpConfigInput = { httpUrl: `${baseUrl}${MCP_PATH}`, command: loupeCommand(), dataDir };
  return { http_url: input.httpUrl, command: input.command, data_dir: dataDir, configs: mcpClientConfigs(input) };
}
