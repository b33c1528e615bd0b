/**
 * The slice of Electron's API that Loupe's thin shell uses. `electron` is an optionalDependency whose
 * binary download fails on machines without a display, leaving no type package; this declaration
 * lets src/main/index.ts and src/preload/index.ts type-check everywhere. (An ambient module wins over
 * node_modules, so the narrow types apply even where Electron is installed.)
 */
declare module 'electron' {
  interface WebContents {
    send(channel: string, ...args: unknown[]): void;
    isDestroyed(): boolean;
    /** userGesture true: the script runs as if the user had just acted (file pickers may open). */
    executeJavaScript(code: string, userGesture?: boolean): Promise<unknown>;
    setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
    on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): void;
  }
  interface BrowserWindowOptions {
    width?: number;
    height?: number;
    title?: string;
    show?: boolean;
    webPreferences?: { preload?: string; contextIsolation?: boolean; nodeIntegration?: boolean; sandbox?: boolean };
  }
  export class BrowserWindow {
    constructor(options?: BrowserWindowOptions);
    static getAllWindows(): BrowserWindow[];
    static getFocusedWindow(): BrowserWindow | null;
    webContents: WebContents;
    loadURL(url: string): Promise<void>;
    once(event: 'ready-to-show', listener: () => void): void;
    on(event: 'closed', listener: () => void): void;
    show(): void;
  }
  export const app: {
    whenReady(): Promise<void>;
    on(event: 'window-all-closed' | 'activate' | 'before-quit', listener: (event: { preventDefault(): void }) => void): void;
    quit(): void;
    exit(code?: number): void;
    getPath(name: 'userData'): string;
  };
  export const ipcMain: {
    handle(channel: string, listener: (event: { sender: WebContents; senderFrame: { url: string } | null }, ...args: unknown[]) => unknown): void;
    on(channel: string, listener: (event: { sender: WebContents; senderFrame: { url: string } | null }, ...args: unknown[]) => void): void;
  };
  export const shell: { openExternal(url: string): Promise<void> };
  export const dialog: { showErrorBox(title: string, content: string): void };
  export const safeStorage: { isEncryptionAvailable(): boolean; encryptString(plain: string): Buffer; decryptString(encrypted: Buffer): string };
  export interface MenuItemConstructorOptions {
    label?: string;
    role?: string;
    type?: 'normal' | 'separator' | 'submenu';
    accelerator?: string;
    submenu?: MenuItemConstructorOptions[];
    click?: () => void;
  }
  export class Menu {
    static buildFromTemplate(template: MenuItemConstructorOptions[]): Menu;
    static setApplicationMenu(menu: Menu | null): void;
  }
  export interface IpcRendererEvent {
    sender: unknown;
  }
  export const ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    send(channel: string, ...args: unknown[]): void;
    on(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): void;
    removeListener(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): void;
  };
  export const contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
}
