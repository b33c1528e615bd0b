/**
 * End-to-end fixture: a real `loupe serve` (startLoupe) on port 0 with a temp data dir, and Debian's
 * Chromium driven by playwright-core. A missing Chromium FAILS the suite with a message; it never
 * silently passes. Screenshots go to test-results/screenshots/.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execSync } from 'node:child_process';
import { startLoupe, type RunningLoupe } from '../../src/main/serve.js';

export const CHROMIUM = process.env.LOUPE_CHROMIUM ?? '/usr/bin/chromium';
export const RENDERER_DIR = resolve('out/renderer');
export const SCREENSHOT_DIR = resolve('test-results/screenshots');

/** Builds the renderer once per run when it is missing or older than the sources (lock-free: vite writes atomically enough for our sequential use). */
export function ensureRendererBuilt(): void {
  if (process.env.LOUPE_SKIP_BUILD === '1' && existsSync(join(RENDERER_DIR, 'index.html'))) return;
  if (!existsSync(join(RENDERER_DIR, 'index.html')) || process.env.LOUPE_REBUILD === '1') {
    execSync('npx electron-vite build', { stdio: 'inherit' });
  }
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) — .ci/run does this`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export interface E2E {
  loupe: RunningLoupe;
  browser: Browser;
  page: Page;
  dataDir: string;
  close(): Promise<void>;
}

/** Starts a server on a fresh data dir and opens a page on it. `theme` sets the stored preference. */
export async function startE2E(opts: { theme?: 'light' | 'dark' } = {}): Promise<E2E> {
  ensureRendererBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'loupe-e2e-'));
  const loupe = await startLoupe({ dataDir, port: 0, rendererDir: RENDERER_DIR, log: () => {} });
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: opts.theme ?? 'light' });
  const page = await context.newPage();
  return {
    loupe,
    browser,
    page,
    dataDir,
    close: async () => {
      await browser.close();
      await loupe.close();
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

export { mkdtempSync };
