/**
 * Page helpers shared by this stream's e2e tests: a REAL file drop (a DataTransfer holding File
 * objects built in the page, dispatched as dragenter/dragover/drop like a user's drag from the
 * desktop), and screenshots of one view in both themes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot, type E2E } from './fixture.js';
import type { BrowserDataTransfer, BrowserDocument, BrowserWindow } from './browser-globals.js';

// Browser globals inside page.evaluate callbacks (see browser-globals.ts).
declare const document: BrowserDocument;
declare const window: BrowserWindow;
declare const DataTransfer: { new (): BrowserDataTransfer };

export async function dropFiles(page: Page, files: Array<{ name: string; content: string }>): Promise<void> {
  const dt = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const f of list) transfer.items.add(new File([f.content], f.name, { type: 'application/json' }));
    return transfer;
  }, files);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('main', type, { dataTransfer: dt });
  await dt.dispose();
}

/** Screenshots the current view as <name>-light.png and <name>-dark.png (the theme follows the OS setting by default). */
export async function screenshotBoth(page: Page, name: string, ready?: () => Promise<unknown>): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    await ready?.();
    await screenshot(page, `${name}-${theme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

export const hash = (project: string, ...rest: string[]) => `#/p/${encodeURIComponent(project)}/${rest.map(encodeURIComponent).join('/')}`;

/** Collects console errors and uncaught page errors (CSP reports included) from now on. */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** POSTs `body` as JSON to the test's server and returns the answer, failing the test (with the body) on anything but 200. */
export function apiOf(e: () => E2E): <T>(path: string, body: unknown) => Promise<T> {
  return async <T,>(path: string, body: unknown): Promise<T> => {
    const r = await fetch(`${e().loupe.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    return JSON.parse(text) as T;
  };
}

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation { target: string; summary: string }

/** Runs axe's color-contrast rule on the page as it is now. */
export async function contrastViolations(page: Page): Promise<Violation[]> {
  // page.evaluate runs through the DevTools protocol, so the app's CSP (script-src 'self') does not apply.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { nodes: { target: string[]; any: { message: string }[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast'] }, resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.any.map((a) => a.message).join('; ') })));
  });
}
