/**
 * The desktop app's menu as plain data, free of Electron so Node tests cover it (Electron main only
 * passes it to Menu.buildFromTemplate). Our items send a UI command to the focused window; the rest
 * are Electron roles, because an application menu replaces the default one and Edit (copy/paste on
 * macOS), reload and dev tools must survive.
 */
import type { UiCommand } from '../shared/events.js';

export interface MenuItemSpec {
  label?: string;
  role?: string;
  type?: 'separator';
  accelerator?: string;
  submenu?: MenuItemSpec[];
  click?: () => void;
}

export function appMenuTemplate(send: (command: UiCommand) => void, platform: NodeJS.Platform = process.platform): MenuItemSpec[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Import…', accelerator: 'CmdOrCtrl+O', click: () => send('import') },
        { label: 'Load demo data', click: () => send('load-demo') },
        { type: 'separator' },
        { role: mac ? 'close' : 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Toggle theme', accelerator: 'CmdOrCtrl+Shift+L', click: () => send('toggle-theme') },
        { type: 'separator' },
        { role: 'reload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
}
