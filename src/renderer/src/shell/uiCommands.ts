/**
 * Commands from the desktop app's menu (File → Import…, Load demo data; View → Toggle theme) arrive
 * as `ui.command` events on the event channel and do exactly what the matching button or key does.
 * Over HTTP no server sends them (Electron main sends them to its own window only), so a browser tab
 * never acts on another window's menu.
 */
import { useEvents } from '../api/events';
import { resolveTheme, useUi } from '../stores/ui';
import type { UiCommand } from '../../../shared/events';

export interface UiCommandActions {
  openImport(): void;
  loadDemo(): void;
  toggleTheme(): void;
}

export function runUiCommand(command: UiCommand, actions: UiCommandActions): void {
  if (command === 'import') actions.openImport();
  else if (command === 'load-demo') actions.loadDemo();
  else if (command === 'toggle-theme') actions.toggleTheme();
}

/** Light ↔ dark from whatever is showing now (a 'system' preference becomes explicit). */
export function toggleTheme(): void {
  const ui = useUi.getState();
  ui.setTheme(resolveTheme(ui.theme) === 'dark' ? 'light' : 'dark');
}

/** Mount once (the shell): runs each menu command with the current actions. */
export function useUiCommands(actions: Omit<UiCommandActions, 'toggleTheme'>): void {
  useEvents((e) => {
    if (e.type === 'ui.command') runUiCommand(e.command, { ...actions, toggleTheme });
  });
}
