/**
 * Ready-to-paste configuration of Loupe's MCP server for coding agents (Claude Code, Codex, Cursor),
 * over HTTP (the running Loupe's `/mcp`) and stdio (`loupe mcp`, which the agent starts). Settings →
 * Coding agents and `loupe mcp --print-config` both print these, so they never disagree.
 *
 * No key is written into them: reads need none (decision 0008), and writes and training read it from
 * the LOUPE_KEY environment variable (`export LOUPE_KEY="$(loupe key)"`) where the client supports
 * that, so the text is safe to show and share.
 */

export interface McpConfigInput {
  /** e.g. http://127.0.0.1:4318/mcp */
  httpUrl: string;
  /** The command that runs Loupe's CLI: `loupe`, or `node /…/bin/loupe.js` from a checkout. */
  command: string[];
  dataDir: string;
}

export interface McpClientConfig {
  client: 'Claude Code' | 'Codex' | 'Cursor';
  transport: 'http' | 'stdio';
  /** Where it goes: a file, or "run in a terminal". */
  where: string;
  text: string;
}

export const KEY_ENV = 'LOUPE_KEY';

/** A shell word: quoted when it holds anything but safe characters. */
const sh = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
const toml = (s: string) => JSON.stringify(s);

export function mcpClientConfigs(i: McpConfigInput): McpClientConfig[] {
  const [cmd, ...pre] = i.command;
  const args = [...pre, 'mcp', '--data-dir', i.dataDir];
  const keyCmd = [...i.command, 'key', '--data-dir', i.dataDir].map(sh).join(' ');
  return [
    {
      client: 'Claude Code', transport: 'http', where: 'run in a terminal',
      text: `claude mcp add --transport http loupe ${i.httpUrl} --header "Authorization: Bearer $(${keyCmd})"`,
    },
    {
      client: 'Claude Code', transport: 'stdio', where: 'run in a terminal',
      text: `claude mcp add loupe -- ${[cmd!, ...args].map(sh).join(' ')}`,
    },
    {
      client: 'Codex', transport: 'http', where: '~/.codex/config.toml',
      text: `# writes and training read the key from ${KEY_ENV}: export ${KEY_ENV}="$(${keyCmd})"\n[mcp_servers.loupe]\nurl = ${toml(i.httpUrl)}\nbearer_token_env_var = "${KEY_ENV}"`,
    },
    {
      client: 'Codex', transport: 'stdio', where: '~/.codex/config.toml',
      text: `[mcp_servers.loupe]\ncommand = ${toml(cmd!)}\nargs = [${args.map(toml).join(', ')}]`,
    },
    {
      client: 'Cursor', transport: 'http', where: '~/.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { loupe: { url: i.httpUrl, headers: { Authorization: `Bearer \${env:${KEY_ENV}}` } } } }, null, 2),
    },
    {
      client: 'Cursor', transport: 'stdio', where: '~/.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { loupe: { command: cmd, args } } }, null, 2),
    },
  ];
}

/** All of them as one text (what `loupe mcp --print-config` prints). */
export function mcpConfigText(i: McpConfigInput): string {
  return mcpClientConfigs(i)
    .map((c) => `# ${c.client}, ${c.transport === 'http' ? `HTTP (a running Loupe at ${i.httpUrl})` : 'stdio (the agent starts `loupe mcp`)'} — ${c.where}\n${c.text}`)
    .join('\n\n');
}
