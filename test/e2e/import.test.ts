/**
 * Import (issue 12 item 7), at 1440×900 and 1024×700, on a real server and Chromium:
 * - a drop asks for the target project; a new one is created, and the choice is remembered for the
 *   next drop;
 * - the progress bar follows the server's work to the end (values between the upload share and 100 %
 *   are seen while the server imports a 4,000-span file), then 100 %;
 * - a second import of the same file says "N spans (N already stored, replaced)";
 * - a `loupe import` from a terminal into the same data folder shows up in the open list, no reload.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS, openPage, startE2E, vpName, type E2E } from './fixture.js';
import { dropFiles, hash, screenshotBoth } from './helpers.js';
import { repoRoot, samplesDir } from '../helpers/paths.js';
import type { BrowserDocument, BrowserWindow } from './browser-globals.js';

declare const document: BrowserDocument;
declare const window: BrowserWindow;
declare const MutationObserver: new (cb: () => void) => { observe(target: unknown, opts: Record<string, unknown>): void };

const run = promisify(execFile);

/** A JSONL file of `n` one-span traces (each line one OTLP request), big enough for several progress events. */
function manySpans(n: number, tag: string): string {
  const t0 = BigInt(Date.now() - 3_600_000) * 1_000_000n;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const traceId = `${tag}${i.toString(16)}`.padStart(32, '0').slice(-32);
    lines.push(JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bulk' } }] }, scopeSpans: [{ scope: { name: 'bulk' }, spans: [{
      traceId, spanId: '1'.repeat(16), name: 'chat gpt-4o-mini', kind: 3,
      startTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n), endTimeUnixNano: String(t0 + BigInt(i) * 1_000_000n + 500_000n),
      attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `question number ${i} ${'padding '.repeat(40)}` }] }]) } }],
    }] }] }] }));
  }
  return `${lines.join('\n')}\n`;
}

describe('import', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
  }, 180_000);
  afterAll(async () => e?.close());

  for (const vp of VIEWPORTS) {
    const project = `acme/imports-${vp.width}`;
    it(`asks for the project (remembered), follows the server to 100 %, and reports replaced spans (${vpName(vp)})`, async () => {
      const page = await openPage(e, vp);
      await page.goto(`${e.loupe.url}/${hash('local/default', 'conversations')}`);
      await page.locator('.page').first().waitFor();
      const file = { name: `bulk-${vp.width}.jsonl`, content: manySpans(4000, `b${vp.width}`) };

      // Watch the bar: every width it takes, from the page itself.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { __widths: string[] }).__widths = seen;
        new MutationObserver(() => {
          for (const el of document.querySelectorAll('[data-testid=import-progress]')) seen.push(el.style.width ?? '');
        }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['style'], childList: true });
      });
      await dropFiles(page, [file]);
      const dialog = page.getByTestId('import-dialog');
      await dialog.waitFor();
      await dialog.getByTestId('import-project').selectOption({ label: 'New project…' });
      await dialog.getByTestId('import-new-project').fill(project);
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'import-dialog');
      await dialog.getByTestId('import-confirm').click();
      await page.locator('[data-testid=import-file][data-state=done]').waitFor({ timeout: 120_000 });
      const summary = await page.getByTestId('import-summary').innerText();
      expect(summary).toContain('4,000 spans');
      expect(summary).toContain(project);
      const widths = (await page.evaluate<string[]>(() => (window as unknown as { __widths: string[] }).__widths)).map((w) => Number.parseFloat(w));
      // The server's part of the bar moved (values between the upload's 20 % and 100 %), and ended full.
      expect(widths.some((w) => w > 20 && w < 100)).toBe(true);
      expect(widths[widths.length - 1]).toBe(100);
      await page.getByRole('button', { name: 'Close import summary' }).click();

      // Again: the dialog offers the same project first; the report says what was already there.
      await dropFiles(page, [file]);
      await dialog.waitFor();
      const offered = await page.evaluate(() => {
        const typed = document.querySelector('[data-testid=import-new-project]') as unknown as { value: string } | null;
        return typed ? typed.value : (document.querySelector('[data-testid=import-project]') as unknown as { value: string }).value;
      });
      expect(offered).toBe(project);
      await dialog.getByTestId('import-confirm').click();
      await page.locator('[data-testid=import-file][data-state=done]').waitFor({ timeout: 120_000 });
      expect(await page.getByTestId('import-summary').innerText()).toContain('4,000 spans (4,000 already stored, replaced)');
      expect(await page.locator('.import-panel strong').innerText()).toBe('Import finished: 4,000 spans (4,000 already stored, replaced)');
      if (vp === VIEWPORTS[0]) await screenshotBoth(page, 'import');
      await page.context().close();
    }, 240_000);
  }

  it('a `loupe import` from a terminal into the same data folder appears in the open list without a reload', async () => {
    const page = await openPage(e, VIEWPORTS[1]);
    await page.goto(`${e.loupe.url}/${hash('cli/live', 'conversations')}`);
    await page.getByTestId('empty-state').waitFor();
    await page.evaluate(() => { (window as unknown as { __same: boolean }).__same = true; });
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-cli-'));
    const file = path.join(dir, 'six.jsonl');
    writeFileSync(file, readFileSync(path.join(samplesDir, 'collector-fileexporter-style.jsonl')));
    await run(process.execPath, [path.join(repoRoot, 'bin/loupe.js'), 'import', file, '--project', 'cli/live', '--data-dir', e.dataDir]);
    await page.getByTestId('conversation-row').first().waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
    await page.context().close();
  }, 60_000);
});
