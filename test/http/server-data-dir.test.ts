/** Where data lives: --data-dir > LOUPE_DATA_DIR > the platform's app-data folder; the key is made once, 0600. */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../src/main/settings/data-dir.js';
import { ensureTrainingKey } from '../../src/main/settings/training-key.js';
import { startTestServer, tempDir } from './server-harness.js';

describe('resolveDataDir', () => {
  it('prefers the flag, then LOUPE_DATA_DIR, then the platform folder', () => {
    const env = { LOUPE_DATA_DIR: '/env/dir' };
    expect(resolveDataDir({ flag: '/flag/dir', env })).toBe('/flag/dir');
    expect(resolveDataDir({ env })).toBe('/env/dir');
    expect(resolveDataDir({ env: {}, platform: 'linux', home: '/home/u' })).toBe('/home/u/.config/Loupe');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg' }, platform: 'linux', home: '/home/u' })).toBe('/xdg/Loupe');
    expect(resolveDataDir({ env: {}, platform: 'darwin', home: '/Users/u' })).toBe('/Users/u/Library/Application Support/Loupe');
    expect(resolveDataDir({ env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\u' })).toBe(path.join('C:\\Users\\u\\AppData\\Roaming', 'Loupe'));
    expect(resolveDataDir({ flag: 'rel/dir', env: {} })).toBe(path.resolve('rel/dir'));
  });
});

describe('training key', () => {
  it('is generated on first run with mode 0600 and then reused', () => {
    const dir = tempDir();
    const key = ensureTrainingKey(dir);
    expect(key).toMatch(/^loupe-[\w-]{32}$/);
    expect(fs.statSync(path.join(dir, 'training.key')).mode & 0o777).toBe(0o600);
    expect(ensureTrainingKey(dir)).toBe(key);
  });

  it('startLoupe uses it as the API key of the context', async () => {
    const server = await startTestServer();
    try {
      expect(server.ctx.apiKey).toBe(fs.readFileSync(path.join(server.dataDir, 'training.key'), 'utf8').trim());
    } finally {
      await server.close();
    }
  });
});

describe('shutdown', () => {
  it('close() ends open connections (an /events stream) and frees the port', async () => {
    const server = await startTestServer();
    const res = await fetch(`${server.url}/events`, { headers: { authorization: `Bearer ${server.ctx.apiKey}` } });
    const reader = res.body!.getReader();
    await reader.read(); // the ": connected" comment: the stream is open
    await server.close();
    const end = await reader.read().catch(() => ({ done: true }));
    expect(end.done).toBe(true);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer().once('error', () => resolve(false));
      s.listen(server.port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    expect(free).toBe(true);
  });
});
