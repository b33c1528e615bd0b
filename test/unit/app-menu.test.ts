/**
 * The desktop menu (src/main/app-menu.ts) as data: File → Import… / Load demo data and View →
 * Toggle theme send the matching UI command; the standard roles that the default menu had survive.
 * (Electron itself cannot run here; src/main/index.ts only hands this template to Menu.)
 */
import { describe, expect, it } from 'vitest';
import { appMenuTemplate, type MenuItemSpec } from '../../src/main/app-menu.js';
import { UI_COMMANDS, type UiCommand } from '../../src/shared/events.js';

const flat = (items: MenuItemSpec[]): MenuItemSpec[] => items.flatMap((i) => [i, ...flat(i.submenu ?? [])]);

describe('app menu', () => {
  it('each of our items sends its command, and every UI command has an item', () => {
    const sent: UiCommand[] = [];
    const menu = appMenuTemplate((c) => sent.push(c), 'linux');
    const byLabel = new Map(flat(menu).filter((i) => i.label).map((i) => [i.label!, i]));
    expect(byLabel.get('File')!.submenu!.map((i) => i.label ?? i.role ?? i.type)).toEqual(['Import…', 'Load demo data', 'separator', 'quit']);
    byLabel.get('Import…')!.click!();
    byLabel.get('Load demo data')!.click!();
    byLabel.get('Toggle theme')!.click!();
    expect(sent).toEqual(['import', 'load-demo', 'toggle-theme']);
    expect([...sent].sort()).toEqual([...UI_COMMANDS].sort());
    expect(byLabel.get('Import…')!.accelerator).toBe('CmdOrCtrl+O');
  });

  it('keeps the standard roles (edit, reload, dev tools, zoom, window); macOS gets its app menu and File → Close', () => {
    const roles = (p: NodeJS.Platform) => flat(appMenuTemplate(() => {}, p)).map((i) => i.role).filter(Boolean);
    expect(roles('linux')).toEqual(['quit', 'editMenu', 'reload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen', 'windowMenu']);
    expect(roles('darwin').slice(0, 3)).toEqual(['appMenu', 'close', 'editMenu']);
    // Items carry a click, a role, a submenu or are separators: nothing inert.
    for (const i of flat(appMenuTemplate(() => {}, 'darwin'))) expect(!!(i.click || i.role || i.submenu || i.type === 'separator'), JSON.stringify(i)).toBe(true);
  });
});
