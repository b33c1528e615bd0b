/**
 * `loupe mcp`: the MCP server over stdio, for agents that start their servers as processes. When a
 * Loupe already serves the data folder (its lock file names its URL and it answers), every tool call
 * goes to that Loupe over its loopback API with the folder's key: one writer, no lock fight, and the
 * app's live views see what the agent writes. Otherwise this process opens the store itself (the
 * folder's SQLite file or the ClickHouse store chosen as for `loupe serve`), as `loupe import` does,
 * without the folder's lock; should that Loupe stop meanwhile, calls move to the store here.
 * stdout carries only protocol messages: everything else goes to stderr.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { chosenTraceStore } from '../serve.js';
import { EventBus } from '../service/events.js';
import type { ServiceContext } from '../service/context.js';
import { readHolder } from '../settings/data-lock.js';
import { openSecretStore } from '../settings/secrets.js';
import { ensureTrainingKey } from '../settings/training-key.js';
import { openStores, type Stores } from '../store/index.js';
import { localCaller, remoteCaller, type Caller } from './caller.js';
import { mcpServerFactory } from './server.js';

export interface StdioOptions {
  dataDir: string;
  /** --store / $LOUPE_STORE when no Loupe runs (as `loupe serve` takes it). */
  store?: string;
  log: (line: string) => void;
}

/** The URL of a Loupe serving `dataDir`, if one answers there now. */
export async function runningLoupe(dataDir: string): Promise<string | null> {
  const url = readHolder(dataDir)?.url;
  if (!url) return null;
  try {
    const res = await fetch(`${url}/app/health`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? url : null;
  } catch {
    return null;
  }
}

/** A network failure reaching the running Loupe (not an answer of it). */
const unreachable = (err: unknown) => err instanceof TypeError || (err as { name?: string })?.name === 'TimeoutError';

/**
 * The stdio server's caller: the running Loupe while it answers, else this process's own store
 * (opened on first need, closed by `close`).
 */
export function folderCaller(opts: StdioOptions, first: string | null): Caller & { close(): Promise<void> } {
  const key = ensureTrainingKey(opts.dataDir);
  let remote = first ? remoteCaller(first, key) : null;
  let stores: Promise<Stores> | null = null;
  let local: Promise<Caller> | null = null;
  const own = () =>
    (local ??= (async () => {
      const { traceStore, explain } = chosenTraceStore(opts.store, openSecretStore(opts.dataDir));
      try {
        stores = openStores(opts.dataDir, { readers: 1, traceStore });
        const s = await stores;
        opts.log(`loupe mcp: reading ${s.traces.adapter === 'sqlite' ? opts.dataDir : s.traces.location} directly (no Loupe is serving ${opts.dataDir})`);
        const ctx: ServiceContext = { traces: s.traces, app: s.app, events: new EventBus(), dataDir: opts.dataDir, apiKey: key };
        return localCaller(ctx, { trusted: true });
      } catch (err) {
        local = null;
        throw explain(err);
      }
    })());
  return {
    scope: opts.dataDir,
    writeRefusal: null,
    async call(name, input, signal) {
      if (remote) {
        try {
          return await remote.call(name, input, signal);
        } catch (err) {
          if (!unreachable(err) || signal?.aborted) throw err;
          opts.log(`loupe mcp: the Loupe serving ${opts.dataDir} stopped answering (${(err as Error).message}); opening the store here`);
          remote = null;
        }
      }
      return (await own()).call(name, input, signal);
    },
    async close() {
      if (stores) await (await stores).close();
    },
  };
}

/** Serves MCP on stdin/stdout until the agent closes stdin. */
export async function runMcpStdio(opts: StdioOptions): Promise<void> {
  // Anything a library prints must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  const url = await runningLoupe(opts.dataDir);
  opts.log(url ? `loupe mcp: serving over stdio; tools call the Loupe at ${url} (data folder ${opts.dataDir})` : `loupe mcp: serving over stdio on data folder ${opts.dataDir}`);
  const caller = folderCaller(opts, url);
  const handle = serveStdio(mcpServerFactory(() => caller), { onerror: (err) => opts.log(`loupe mcp: ${err.message}`) });
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await handle.close().catch(() => undefined);
  await caller.close();
}
