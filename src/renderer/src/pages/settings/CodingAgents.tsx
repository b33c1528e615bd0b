/**
 * Settings → Coding agents: ready-to-paste configuration of Loupe's MCP server for Claude Code,
 * Codex and Cursor, over HTTP (this Loupe's /mcp) or stdio (`loupe mcp`, started by the agent),
 * from 'mcp.config' (the same texts as `loupe mcp --print-config`). No key is in them.
 */
import { useState } from 'react';
import { useOp } from '../../api/query';
import { ErrorNote } from '../../components/ErrorNote';

const CLIENTS = ['Claude Code', 'Codex', 'Cursor'] as const;
type ClientName = (typeof CLIENTS)[number];

export function CodingAgents() {
  const q = useOp('mcp.config', {});
  const [client, setClient] = useState<ClientName>('Claude Code');
  const [transport, setTransport] = useState<'http' | 'stdio'>('http');
  const [copied, setCopied] = useState<string | null>(null);
  const cfg = q.data?.configs.find((c) => c.client === client && c.transport === transport);
  return (
    <div className="coding-agents" data-testid="coding-agents">
      <span className="muted">
        Let Claude Code, Codex or Cursor read this Loupe&apos;s conversations, traces and spans through its MCP server
        {q.data && <> at <code data-testid="mcp-url">{q.data.http_url}</code></>}. Reads need no key; feedback and training read the key from <code>LOUPE_KEY</code>.
      </span>
      <ErrorNote error={q.error} what="the MCP configuration" />
      <div className="toolbar" role="group" aria-label="Coding agent">
        {CLIENTS.map((c) => (
          <button key={c} aria-pressed={client === c} className={client === c ? 'active' : ''} onClick={() => setClient(c)}>{c}</button>
        ))}
        <span className="faint">·</span>
        {(['http', 'stdio'] as const).map((t) => (
          <button key={t} aria-pressed={transport === t} className={transport === t ? 'active' : ''} onClick={() => setTransport(t)}>
            {t === 'http' ? 'HTTP (this Loupe)' : 'stdio (loupe mcp)'}
          </button>
        ))}
      </div>
      {cfg && (
        <>
          <span className="faint" data-testid="mcp-config-where">{cfg.where === 'run in a terminal' ? 'Run in a terminal:' : `Add to ${cfg.where}:`}</span>
          <pre className="mcp-config" data-testid="mcp-config">{cfg.text}</pre>
          <span className="toolbar">
            <button onClick={() => void navigator.clipboard?.writeText(cfg.text).then(() => setCopied(cfg.text), () => setCopied(null))}>
              {copied === cfg.text ? 'Copied' : 'Copy'}
            </button>
            <span className="faint">Also printed by <code>loupe mcp --print-config</code>; docs/mcp.md lists every tool.</span>
          </span>
        </>
      )}
    </div>
  );
}
