/**
 * `loupe` command line: serve | import | demo | key. Run through bin/loupe.js (the built JavaScript in out/cli/) or
 * `npm run loupe -- …` from a checkout.
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { startLoupe, chosenTraceStore, DEFAULT_PORT } from './serve.js';
import { openSecretStore } from './settings/secrets.js';
import { resolveDataDir } from './settings/data-dir.js';
import { ensureTrainingKey } from './settings/training-key.js';
import { securePrivateFiles } from './settings/private-files.js';
import { readHolder } from './settings/data-lock.js';
import { requestLoginUrl } from './settings/login-codes.js';
import { openStores } from './store/index.js';
import { importFile, type ImportReport } from './service/ingest/index.js';
import { loadDemo } from './demo/load.js';
import { errorMessage } from '../shared/errors.js';
import { mcpConfigText } from '../shared/mcp-config.js';
import { loupeCommand, MCP_PATH } from './mcp/config.js';
import { runMcpStdio } from './mcp/stdio.js';

const USAGE = `usage:
  loupe serve  [--data-dir D] [--port P] [--store S]   run the headless server (UI in the browser)
  loupe import <files...> [--project P] [--data-dir D] [--store S] [--json]
  loupe demo   [--data-dir D] [--store S] [--project P] load the demo conversations
  loupe key    [--data-dir D]                   print the local training API key
  loupe url    [--data-dir D]                   a fresh one-time link that opens the running Loupe in a browser
  loupe mcp    [--data-dir D] [--store S]       the MCP server over stdio, for coding agents (docs/mcp.md)
  loupe mcp --print-config [--data-dir D] [--port P]   configuration for Claude Code, Codex and Cursor
data dir: --data-dir, else $LOUPE_DATA_DIR, else the platform's app-data folder. port: --port, else $LOUPE_PORT, else the port saved in Settings (server.port), else ${DEFAULT_PORT}.
store (where spans live): --store, else $LOUPE_STORE, else the store saved in Settings, else the data dir's file.
  S is clickhouse://user:password@host:8123/database (clickhouses:// for TLS) or "sqlite" (the data dir's file);
  feedback, settings and training stay in the data dir either way.`;

class UsageError extends Error {}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        'data-dir': { type: 'string' },
        port: { type: 'string' },
        store: { type: 'string' },
        project: { type: 'string' },
        json: { type: 'boolean', default: false },
        'print-config': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** undefined = neither flag nor env: startLoupe then uses the saved setting, else the default. */
function portOf(raw: string | undefined): number | undefined {
  const text = raw ?? process.env.LOUPE_PORT;
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: "${text}" is not a port number (0-65535)`);
  return port;
}

/** --store, else $LOUPE_STORE; undefined = neither (the store saved in Settings, else the data dir's file). */
function storeOf(flag: string | undefined): string | undefined {
  const text = flag ?? process.env.LOUPE_STORE;
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** The data folder 0700 and its database 0600 from the first command that creates them, as `serve` makes them (issue 22.5). */
function privateDataDir(dataDir: string): void {
  for (const warning of securePrivateFiles(dataDir)) console.error(warning);
}

/** The stores of a command that only writes (no read workers), on the chosen trace store. */
async function openCliStores(dataDir: string, store: string | undefined) {
  privateDataDir(dataDir);
  const { traceStore, explain } = chosenTraceStore(store, openSecretStore(dataDir));
  try {
    return await openStores(dataDir, { readers: 0, traceStore });
  } catch (err) {
    throw explain(err);
  }
}

async function serve(dataDir: string, port: number | undefined, store: string | undefined): Promise<void> {
  const running = await startLoupe({ dataDir, port, store, log: (line) => console.error(line) });
  console.log(`listening on ${running.url}`);
  console.error(`data dir: ${dataDir}`);
  // The page needs this one-time link to sign in (settings/login-codes.ts); stderr reaches only this user.
  console.error(`open the UI (one-time link, valid 10 minutes; \`loupe url\` makes another): ${running.loginUrl}`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function describe(file: string, r: ImportReport): string {
  const lines = [
    `${file}: ${r.format}, ${r.spans_imported} spans imported, ${r.spans_replaced} replaced, ${r.spans_skipped} skipped` +
      (r.non_trace_lines_skipped ? `, ${r.non_trace_lines_skipped} non-trace lines skipped` : '') +
      (r.projects.length ? ` → ${r.projects.join(', ')}` : ''),
  ];
  if (r.spans_imported + r.spans_replaced + r.spans_skipped === 0 && r.error_count === 0) {
    lines.push(`  warning: no spans found in ${file}${r.non_trace_lines_skipped ? ' (none of its lines are OTLP traces)' : ''}`);
  }
  for (const [reason, n] of Object.entries(r.skipped_reasons)) lines.push(`  skipped ${n}: ${reason}`);
  for (const e of r.errors) lines.push(`  error${e.line == null ? '' : ` at line ${e.line}`}: ${e.message}`);
  if (r.error_count > r.errors.length) lines.push(`  … and ${r.error_count - r.errors.length} more errors`);
  return lines.join('\n');
}

async function runImport(files: string[], dataDir: string, storeSpec: string | undefined, project: string | undefined, json: boolean): Promise<number> {
  if (!files.length) throw new UsageError('import: name at least one file');
  const store = await openCliStores(dataDir, storeSpec);
  let failed = 0;
  const reports: { file: string; report: ImportReport | null; error: string | null }[] = [];
  try {
    for (const file of files) {
      const tty = process.stderr.isTTY;
      let last = 0;
      try {
        const report = await importFile(store.traces, path.resolve(file), {
          projectId: project,
          onProgress: (p) => {
            const now = Date.now();
            if (now - last < (tty ? 200 : 2000)) return;
            last = now;
            // Bytes read run ahead of spans stored: say which is which (it read "100% 0 spans", issue 22.11).
            const read = p.totalBytes ? ` read ${((100 * p.bytes) / p.totalBytes).toFixed(0)}%,` : '';
            process.stderr.write(`${tty ? '\r\x1b[K' : ''}${file}:${read} ${p.spans.toLocaleString('en-US')} spans stored${tty ? '' : '\n'}`);
          },
        });
        if (tty && last) process.stderr.write('\r\x1b[K');
        reports.push({ file, report, error: null });
        if (report.error_count) failed += 1;
        if (!json) console.log(describe(file, report));
      } catch (err) {
        if (tty && last) process.stderr.write('\r\x1b[K');
        failed += 1;
        reports.push({ file, report: null, error: (err as Error).message });
        if (!json) console.log(`${file}: refused: ${(err as Error).message}`);
      }
    }
  } finally {
    await store.close();
  }
  if (json) console.log(JSON.stringify({ files: reports }, null, 2));
  return failed ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const { values, positionals } = parse(rest);
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const dataDir = resolveDataDir({ flag: values['data-dir'] });
  switch (command) {
    case 'serve':
      await serve(dataDir, portOf(values.port), storeOf(values.store));
      return -1; // keeps running
    case 'import':
      return runImport(positionals, dataDir, storeOf(values.store), values.project, values.json ?? false);
    case 'demo': {
      const store = await openCliStores(dataDir, storeOf(values.store));
      try {
        const r = await loadDemo(store, { projectId: values.project });
        const where = store.traces.adapter === 'sqlite' ? dataDir : `${store.traces.location}; feedback in ${dataDir}`;
        console.log(`demo data loaded into ${r.project_id}: ${r.conversations} conversations, ${r.traces} turns, ${r.spans} spans, ${r.feedback} feedback records (${where})`);
      } finally {
        await store.close();
      }
      return 0;
    }
    case 'key':
      privateDataDir(dataDir);
      console.log(ensureTrainingKey(dataDir));
      return 0;
    case 'url': {
      const holder = readHolder(dataDir);
      if (!holder?.url) throw new Error(`no Loupe is serving ${dataDir} (start one with: loupe serve --data-dir ${dataDir})`);
      console.log(await requestLoginUrl(holder.url, ensureTrainingKey(dataDir)));
      return 0;
    }
    case 'mcp': {
      if (values['print-config']) {
        // The running Loupe's address when there is one, else where `loupe serve` would listen.
        const base = readHolder(dataDir)?.url ?? `http://127.0.0.1:${portOf(values.port) ?? DEFAULT_PORT}`;
        console.log(mcpConfigText({ httpUrl: `${base}${MCP_PATH}`, command: loupeCommand(), dataDir }));
        return 0;
      }
      await runMcpStdio({ dataDir, store: storeOf(values.store), log: (line) => console.error(line) });
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`loupe: ${err.message}\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error(`loupe: ${errorMessage(err)}`);
      process.exitCode = 1;
    }
  },
);
