/**
 * Electron main process, kept thin on purpose (it cannot run on the build machines): start the same
 * headless Loupe as `loupe serve`, open one sandboxed window on it, and bridge IPC through
 * transport/ipc.ts, whose functions are covered by Node tests (test/unit/ipc-*.test.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, shell } from 'electron';
import { startLoupe, type RunningLoupe } from './serve.js';
import { resolveDataDir } from './settings/data-dir.js';
import { DataDirInUseError } from './settings/data-lock.js';
import { requestLoginUrl } from './settings/login-codes.js';
import { ensureTrainingKey } from './settings/training-key.js';
import { CALL_CHANNEL, CANCEL_CHANNEL, EVENT_CHANNEL, forwardEvents, handleIpcCall, handleIpcCancel, isAppUrl, isWebUrl } from './transport/ipc.js';
import { appMenuTemplate } from './app-menu.js';
import type { LoupeEvent, UiCommand } from '../shared/events.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let loupe: RunningLoupe | null = null;

/** The origin the window loads: the loopback server, or Vite's dev server under `electron-vite dev`. */
const appUrl = (running: RunningLoupe) => process.env.ELECTRON_RENDERER_URL ?? `${running.url}/`;

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
    if (isWebUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  // The window stays on the app's origin; anything else opens in the user's browser (see isAppUrl).
  win.webContents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, appUrl(running))) return;
    event.preventDefault();
    if (isWebUrl(url)) void shell.openExternal(url);
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(appUrl(running));
}

/**
 * Menu → renderer: the command goes to the focused window over the event channel (not the event bus,
 * so browsers on the same server are not affected). A menu click is a user gesture but IPC does not
 * carry it, and Chromium opens a file picker only with one, so the window is first given a transient
 * user activation (executeJavaScript with userGesture), then sent the command.
 */
function sendUiCommand(command: UiCommand): void {
  const win = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  if (!win || win.webContents.isDestroyed()) return;
  const event: LoupeEvent = { type: 'ui.command', command };
  void win.webContents
    .executeJavaScript('0', true)
    .catch(() => undefined)
    .then(() => {
      if (!win.webContents.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event);
    });
}

async function main(): Promise<void> {
  await app.whenReady();
  const dataDir = resolveDataDir({ flag: argValue('--data-dir') });
  // flag > env > the port saved in Settings (read by startLoupe) > 4318.
  const portText = argValue('--port') ?? process.env.LOUPE_PORT;
  const port = portText ? Number(portText) : undefined;
  // Where spans live: --store > $LOUPE_STORE > the store saved in Settings (read by startLoupe) > the data folder's file.
  const store = argValue('--store') ?? (process.env.LOUPE_STORE || undefined);
  loupe = await startLoupe({ dataDir, port, store, what: 'the Loupe desktop app', encrypter: safeStorage, nativeBinding: process.env.LOUPE_NATIVE_BINDING || undefined, log: (l) => console.log(l) });
  console.log(`listening on ${loupe.url}`);
  const running = loupe;
  ipcMain.handle(CALL_CHANNEL, (event, operation, input, callId) => {
    if (!isAppUrl(event.senderFrame?.url, appUrl(running))) {
      return { ok: false, error: { status: 403, detail: 'IPC calls are answered only for the app itself' } };
    }
    return handleIpcCall(running.ctx, operation, input, callId);
  });
  ipcMain.on(CANCEL_CHANNEL, (event, callId) => {
    if (isAppUrl(event.senderFrame?.url, appUrl(running))) handleIpcCancel(callId);
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(sendUiCommand)));
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
  // Another Loupe holds this data folder (settings/data-lock.ts): say which, and open it rather than
  // start a second trainer on the same jobs (issue 13.1).
  if (err instanceof DataDirInUseError) {
    const holderUrl = err.holder?.url;
    const opened = holderUrl
      ? requestLoginUrl(holderUrl, ensureTrainingKey(err.dataDir)).then((url) => shell.openExternal(url)).then(() => true, () => false)
      : Promise.resolve(false);
    void opened.then((ok) => {
      if (!ok) dialog.showErrorBox('Loupe is already running', err.message);
      app.exit(ok ? 0 : 1);
    });
    return;
  }
  app.exit(1);
});
