/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, run under Node >= 22:
 * scripts/conformance-node.mjs) against Loupe's /mcp, on the scenarios that apply to a server that
 * offers tools, resources and prompts over data it holds: initialize, ping, the three lists, DNS-
 * rebinding protection on the 2025 revisions; on 2026-07-28 the stateless server, caching hints,
 * header validation, resource-not-found and the lists. Logging is not offered (deprecated in
 * 2026-07-28), nor completions, subscriptions or the suite's test tools (tools-call-*, prompts-get-*:
 * they call tools and prompts of fixed names that only its reference server has).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startTestServer, tempDir } from './server-harness.js';
import { prepareMcpData } from '../helpers/mcp.js';
import type { RunningLoupe } from '../../src/main/serve.js';
// @ts-expect-error -- a plain .mjs script without types
import { conformanceNode } from '../../scripts/conformance-node.mjs';

const SUITE = path.join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

const LISTS = ['tools-list', 'resources-list', 'prompts-list'];
const RUNS: { version: string; scenarios: string[] }[] = [
  { version: '2025-06-18', scenarios: ['server-initialize', 'ping', ...LISTS] },
  { version: '2025-11-25', scenarios: ['server-initialize', 'ping', ...LISTS, 'dns-rebinding-protection'] },
  { version: '2026-07-28', scenarios: ['server-stateless', ...LISTS, 'dns-rebinding-protection', 'caching', 'http-header-validation', 'sep-2164-resource-not-found'] },
];

/**
 * Checks of server-stateless that call the suite's own test tools (test_missing_capability, a tool
 * that sends a request or a log message mid-call): a server without those tools cannot pass or fail
 * them meaningfully. Every other check of the scenario must pass.
 */
const NOT_APPLICABLE = new Set([
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
]);

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let server: RunningLoupe;
let node22: string;
const out = tempDir('loupe-mcp-conformance-');

beforeAll(async () => {
  node22 = conformanceNode() as string;
  const dataDir = tempDir('loupe-mcp-conf-');
  await prepareMcpData(dataDir, { big: false });
  server = await startTestServer({ dataDir, store: undefined });
}, 300_000);
afterAll(async () => server?.close());

function runScenario(version: string, scenario: string): Promise<{ code: number | null; output: string; checks: Check[] }> {
  const dir = path.join(out, `${version}-${scenario}`);
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [SUITE, 'server', '--url', `${server.url}/mcp`, '--scenario', scenario, '--spec-version', version, '-o', dir], {
      cwd: out,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('checks.json')) : [];
      const checks = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Check[]);
      resolve({ code, output, checks });
    });
  });
}

describe('MCP conformance suite', () => {
  for (const run of RUNS) {
    it(`passes the scenarios that apply on ${run.version}`, async () => {
      const failures: string[] = [];
      let passed = 0;
      // Two at a time: each scenario is its own Node process.
      const queue = [...run.scenarios];
      const worker = async () => {
        for (let s = queue.shift(); s; s = queue.shift()) {
          const r = await runScenario(run.version, s);
          if (!r.checks.length) failures.push(`${s}: no checks recorded (exit ${r.code})\n${r.output.slice(-2000)}`);
          for (const c of r.checks) {
            if (c.status === 'SUCCESS') passed++;
            else if (c.status === 'FAILURE' && !NOT_APPLICABLE.has(c.id)) failures.push(`${s} / ${c.id}: ${c.errorMessage ?? ''}`);
          }
        }
      };
      await Promise.all([worker(), worker()]);
      console.log(`[mcp conformance] ${run.version}: ${run.scenarios.length} scenarios, ${passed} checks passed, ${failures.length} failed`);
      expect(failures).toEqual([]);
      expect(passed).toBeGreaterThan(run.scenarios.length);
    }, 600_000);
  }
});
