/**
 * Electron main process, kept thin on purpose (it cannot run on the build machines): start the same
 * headless Loupe as `loupe serve`, open one sandboxed window on it, and bridge IPC through
 * transport/ipc.ts, whose functions are covered by Node tests (test/unit/ipc-*.test.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, shell } from 'electron';
import { startLoupe, type RunningLoupe } from './serve.js';
import { resolveDataDir } from './settings/data-dir.js';
import { CALL_CHANNEL, forwardEvents, handleIpcCall } from './transport/ipc.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let loupe: RunningLoupe | null = null;

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function createWindow(running: RunningLoupe): void {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'Loupe',
    show: false,
    webPreferences: {
      preload: path.join(here, '../preload/index.cjs'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    },
  });
  const stop = forwardEvents(running.ctx, (channel, event) => {
    if (!win.webContents.isDestroyed()) win.webContents.send(channel, event);
  });
  win.on('closed', stop);
  // Links to other sites open in the user's browser, never inside the app window.
  win.webContents.setWindowOpenHandler(({ url }) => {
    void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(process.env.ELECTRON_RENDERER_URL ?? `${running.url}/`);
}

async function main(): Promise<void> {
  await app.whenReady();
  const dataDir = resolveDataDir({ flag: argValue('--data-dir') });
  // flag > env > the port saved in Settings (read by startLoupe) > 4318.
  const portText = argValue('--port') ?? process.env.LOUPE_PORT;
  const port = portText ? Number(portText) : undefined;
  loupe = await startLoupe({ dataDir, port, nativeBinding: process.env.LOUPE_NATIVE_BINDING || undefined, log: (l) => console.log(l) });
  console.log(`listening on ${loupe.url}`);
  const running = loupe;
  ipcMain.handle(CALL_CHANNEL, (_event, operation, input) => handleIpcCall(running.ctx, operation, input));
  createWindow(running);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow(running);
  });
}

app.on('window-all-closed', () => app.quit());
app.on('before-quit', (event) => {
  if (!loupe) return;
  event.preventDefault();
  const closing = loupe;
  loupe = null;
  void closing.close().finally(() => app.exit(0));
});

main().catch((err: unknown) => {
  console.error(err);
  app.exit(1);
});
