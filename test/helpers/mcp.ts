/**
 * The SDK's own MCP Client against Loupe, over Streamable HTTP or stdio, on a chosen protocol
 * revision: '2025-06-18' and '2025-11-25' with the initialize handshake, '2026-07-28' stateless
 * (the client probes with server/discover), and 'no-handshake': 2026-07-28 from the first request
 * on (connect adopts a known discover result, so no message precedes the first tool call).
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';
import { importBuffer } from '../../src/main/service/ingest/index.js';
import { openStores } from '../../src/main/store/index.js';
import { loadDemo } from '../../src/main/demo/load.js';
import { bigTrace } from './big-trace.js';

export type Revision = '2025-06-18' | '2025-11-25' | '2026-07-28' | 'no-handshake';
export const REVISIONS: Revision[] = ['2025-06-18', '2025-11-25', '2026-07-28', 'no-handshake'];

const MODERN = '2026-07-28';
const DISCOVER = {
  supportedVersions: [MODERN],
  capabilities: { tools: {}, resources: {}, prompts: {} },
  serverInfo: { name: 'loupe', version: '0' },
} as const;

function client(rev: Revision): Client {
  const info = { name: 'loupe-test', version: '1.0.0' };
  if (rev === '2025-06-18' || rev === '2025-11-25') return new Client(info, { supportedProtocolVersions: [rev] });
  return new Client(info, { versionNegotiation: { mode: { pin: MODERN } } });
}

async function connect(c: Client, transport: StreamableHTTPClientTransport | StdioClientTransport, rev: Revision): Promise<Client> {
  if (rev === 'no-handshake') await c.connect(transport, { prior: { kind: 'modern', discover: DISCOVER as never } });
  else await c.connect(transport);
  expect(c.getNegotiatedProtocolVersion()).toBe(rev === 'no-handshake' ? MODERN : rev);
  return c;
}

export function httpClient(url: string, rev: Revision, headers: Record<string, string> = {}): Promise<Client> {
  return connect(client(rev), new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }), rev);
}

export function stdioClient(command: string, args: string[], rev: Revision, onStderr?: (text: string) => void): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => onStderr?.(d.toString()));
  return connect(client(rev), transport, rev);
}

export interface ToolAnswer {
  text: string;
  structured: any;
  isError: boolean;
  bytes: number;
}

/** Calls a tool; `bytes` is what the tool's budget counts (the text and the structured content as JSON). */
export async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = await c.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text: string }[]).map((p) => p.text).join('');
  const structured = r.structuredContent ?? null;
  const bytes = Buffer.byteLength(text) + (structured ? Buffer.byteLength(JSON.stringify(structured)) : 0);
  return { text, structured, isError: r.isError === true, bytes };
}

/** The budget a tool states in its description ("at most 24 KB"), in bytes. */
export function statedBudget(description: string | undefined): number {
  const m = /at most (\d+) KB/.exec(description ?? '');
  if (!m) throw new Error(`no budget stated in: ${description}`);
  return Number(m[1]) * 1024;
}

export const BIG_PROJECT = 'mcp/big';
export const BIG_TRACE = 'b1'.repeat(16);
export const BIG_SPANS = 20_000;

/** The demo conversations and a 20,000-span trace, written into a data folder before a server starts. */
export async function prepareMcpData(dataDir: string, opts: { big?: boolean; store?: string } = {}): Promise<void> {
  const store = await openStores(dataDir, { traceStore: opts.store });
  try {
    await loadDemo(store, { projectId: 'local/demo' });
    if (opts.big !== false) {
      const r = await importBuffer(store.traces, Buffer.from(JSON.stringify(bigTrace(BIG_TRACE, BIG_SPANS))), { contentType: 'application/json', projectId: BIG_PROJECT });
      expect(r.spans_imported).toBe(BIG_SPANS);
    }
  } finally {
    await store.close();
  }
}
