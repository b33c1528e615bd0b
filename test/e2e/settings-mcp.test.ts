/**
 * Settings → Coding agents in real Chromium (issue 17): the panel shows ready-to-paste configuration
 * for Claude Code, Codex and Cursor over HTTP and stdio — this Loupe's /mcp address and data folder,
 * the same texts `loupe mcp --print-config` prints, no key in them — and the HTTP address it shows
 * answers as an MCP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startE2E, type E2E } from './fixture.js';
import { hash } from './helpers.js';
import { call, httpClient } from '../helpers/mcp.js';

describe('Settings: coding agents (MCP)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ demo: true });
  }, 180_000);
  afterAll(async () => e?.close());

  it('shows each client\'s configuration for HTTP and stdio, without the key', async () => {
    const { page, loupe } = e;
    await page.goto(`${loupe.url}/${hash('local/demo', 'settings')}`);
    const panel = page.getByTestId('coding-agents');
    await panel.getByTestId('mcp-url').filter({ hasText: `${loupe.url}/mcp` }).waitFor();
    const config = panel.getByTestId('mcp-config');
    const texts = new Map<string, string>();
    for (const client of ['Claude Code', 'Codex', 'Cursor']) {
      await panel.getByRole('button', { name: client, exact: true }).click();
      for (const transport of ['HTTP (this Loupe)', 'stdio (loupe mcp)']) {
        await panel.getByRole('button', { name: transport }).click();
        const text = (await config.textContent()) ?? '';
        texts.set(`${client} ${transport}`, text);
        expect(text).not.toContain(loupe.ctx.apiKey);
        if (transport.startsWith('HTTP')) expect(text, client).toContain(`${loupe.url}/mcp`);
        else expect(text, client).toContain(e.dataDir);
      }
    }
    expect(texts.get('Claude Code HTTP (this Loupe)')).toMatch(/^claude mcp add --transport http loupe /);
    expect(texts.get('Codex stdio (loupe mcp)')).toMatch(/^\[mcp_servers\.loupe\]\ncommand = /);
    expect(JSON.parse(texts.get('Cursor HTTP (this Loupe)')!).mcpServers.loupe.headers.Authorization).toBe('Bearer ${env:LOUPE_KEY}');
    expect(JSON.parse(texts.get('Cursor stdio (loupe mcp)')!).mcpServers.loupe.args).toContain('mcp');
    await panel.getByRole('button', { name: 'Claude Code', exact: true }).click();
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-mcp-light');

    // The address shown is a working MCP server.
    const c = await httpClient(loupe.url, '2025-11-25');
    const projects = await call(c, 'list_projects');
    expect(projects.structured.projects.map((p: { project: string }) => p.project)).toContain('local/demo');
    await c.close();
  });
});
