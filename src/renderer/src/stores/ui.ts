/**
 * UI state only (never server data): theme, last selected project, column preferences, display
 * preferences. Persisted to localStorage so a reload keeps the layout. Server data lives in the
 * react-query cache (api/query.ts).
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';

export type ThemePref = 'system' | 'light' | 'dark';

export interface ColumnPrefs {
  /** Column ids in display order; missing ids are appended by the table. */
  order?: string[];
  hidden?: string[];
  widths?: Record<string, number>;
}

export interface DisplayPrefs {
  /** Show costs in lists and chat (they can be distracting when unknown). */
  showCosts: boolean;
  /** Relative ("3 min ago") or absolute timestamps in lists. */
  relativeTimes: boolean;
  /** Chat view: expand tool results by default. */
  expandToolResults: boolean;
}

interface UiState {
  theme: ThemePref;
  project: string | null;
  /** Keyed by `<project>/<table>` so each project keeps its own layout. */
  columns: Record<string, ColumnPrefs>;
  display: DisplayPrefs;
  setTheme(theme: ThemePref): void;
  setProject(project: string): void;
  setColumns(key: string, prefs: ColumnPrefs): void;
  setDisplay(patch: Partial<DisplayPrefs>): void;
}

export const useUi = create<UiState>()(
  persist(
    (set) => ({
      theme: 'system',
      project: null,
      columns: {},
      display: { showCosts: true, relativeTimes: true, expandToolResults: false },
      setTheme: (theme) => set({ theme }),
      setProject: (project) => set({ project }),
      setColumns: (key, prefs) => set((s) => ({ columns: { ...s.columns, [key]: prefs } })),
      setDisplay: (patch) => set((s) => ({ display: { ...s.display, ...patch } })),
    }),
    { name: 'loupe.ui', version: 1 },
  ),
);

/** The theme actually applied: 'system' follows the OS (prefers-color-scheme). */
export function resolveTheme(pref: ThemePref): 'light' | 'dark' {
  if (pref !== 'system') return pref;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
