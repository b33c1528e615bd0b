/**
 * End-to-end fixture: a real `loupe serve` (startLoupe) on port 0 with a temp data dir, and Debian's
 * Chromium driven by playwright-core. A missing Chromium FAILS the suite with a message; it never
 * silently passes. Screenshots go to test-results/screenshots/.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLoupe, type RunningLoupe, type StartOptions } from '../../src/main/serve.js';
import { buildRenderer } from './build-renderer.js';

export const CHROMIUM = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
export const RENDERER_DIR = resolve('out/renderer');
export const SCREENSHOT_DIR = resolve('test-results/screenshots');

/**
 * Builds the renderer when out/renderer is missing or older than any source under src/renderer or
 * src/shared (LOUPE_SKIP_BUILD=1 skips the check). Several engineers/test files may build at once:
 * a mkdir lock serializes builds, and each build goes to a temp dir swapped in by rename, so a
 * server never serves a half-written directory.
 */
export async function ensureRendererBuilt(): Promise<void> {
  const index = join(RENDERER_DIR, 'index.html');
  if (process.env.LOUPE_SKIP_BUILD === '1' && existsSync(index)) return;
  const lock = resolve('out/.renderer-build.lock');
  mkdirSync(resolve('out'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250)); // waiting on another process's build, not on the UI
    }
  }
  try {
    const built = existsSync(index) ? statSync(index).mtimeMs : 0;
    if (built > newestSource() && process.env.LOUPE_REBUILD !== '1') return;
    const tmp = `${RENDERER_DIR}.tmp-${process.pid}`;
    await buildRenderer(tmp);
    rmSync(RENDERER_DIR, { recursive: true, force: true });
    renameSync(tmp, RENDERER_DIR);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(resolve('src/renderer'));
  walk(resolve('src/shared'));
  return newest;
}

/** A new Chromium; test files get theirs from `sharedBrowser()`. */
async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) — .ci/run does this`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * The test worker's one Chromium, launched by the first file that asks and reused by the files after it
 * in the same worker (vitest `isolate: false` keeps the process): each file opens its own contexts in
 * it (separate storage, cookies, viewport) and `releaseBrowser` closes them at its end. A launch and
 * close cost ~2 s of CPU and 6 s of wall time at load ~13 (5 launches against 1 launch with 5 contexts;
 * issue 22.6). Playwright kills the browser when the worker process exits; a browser that died or was
 * closed is replaced at the next call. Kept on globalThis so that a module graph evaluated again (an
 * isolated run, LOUPE_TEST_ISOLATE=1) still finds it.
 */
export async function sharedBrowser(): Promise<Browser> {
  const slot = globalThis as { loupeTestBrowser?: Promise<Browser> };
  const current = slot.loupeTestBrowser && (await slot.loupeTestBrowser.catch(() => undefined));
  if (current?.isConnected()) return current;
  slot.loupeTestBrowser = launchBrowser();
  return slot.loupeTestBrowser;
}

/** Ends what a test file opened in the shared browser (every context it made); the browser stays up. */
export async function releaseBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((c) => c.close()));
}

export interface E2E {
  loupe: RunningLoupe;
  browser: Browser;
  page: Page;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts a server on a fresh data dir and opens a page on it. `theme` sets the stored preference. */
/**
 * Loads the demo data through the same operation the UI's "Load demo data" button calls
 * (POST /app/demo); fails the test when the server refuses.
 */
export async function loadDemo(url: string): Promise<void> {
  const res = await fetch(`${url}/app/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status !== 200) throw new Error(`loading demo data answered ${res.status}: ${await res.text()}`);
}

/** The two window sizes every view is checked at (issue 12): a laptop and a small window. */
export const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;
export type Viewport = { width: number; height: number };
export const vpName = (v: Viewport) => `${v.width}x${v.height}`;

/** Another page on the same browser with its own context (storage, viewport, colour scheme). */
export async function openPage(e: E2E, viewport: Viewport, theme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await e.browser.newContext({ viewport, colorScheme: theme });
  await signedIn(context, e.loupe.ctx.apiKey);
  return context.newPage();
}

/**
 * A browser that signed in before (opened the login link once): the page keeps the key in its
 * origin's localStorage (src/renderer/src/api/session.ts). test/e2e/login.test.ts covers the link itself.
 */
export async function signedIn(context: BrowserContext, key: string): Promise<void> {
  await context.addInitScript(`window.localStorage.setItem('loupe.key', ${JSON.stringify(key)})`);
}

/**
 * `prepare(dataDir)` runs before the server starts (e.g. a big trace written straight into the store,
 * which is faster than posting it to a running server that keeps its write transactions short).
 */
export async function startE2E(opts: { theme?: 'light' | 'dark'; demo?: boolean; viewport?: Viewport; prepare?: (dataDir: string) => Promise<void> | void; spool?: StartOptions['spool'] } = {}): Promise<E2E> {
  await ensureRendererBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-e2e-'));
  await opts.prepare?.(dataDir);
  const loupe = await startLoupe({ dataDir, port: 0, rendererDir: RENDERER_DIR, log: () => {}, spool: opts.spool });
  if (opts.demo) await loadDemo(loupe.url);
  const browser = await sharedBrowser();
  const context = await browser.newContext({ viewport: opts.viewport ?? VIEWPORTS[0], colorScheme: opts.theme ?? 'light' });
  await signedIn(context, loupe.ctx.apiKey);
  const page = await context.newPage();
  const e: E2E = {
    loupe,
    browser,
    page,
    dataDir,
    // Closes the server the fixture holds now (a test may restart it on the same port).
    close: async () => {
      await releaseBrowser(browser);
      await e.loupe.close();
    },
  };
  return e;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

export { mkdtempSync };
