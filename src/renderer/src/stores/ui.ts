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

/** Sizes the user dragged (splitters), remembered across reloads. */
export interface LayoutPrefs {
  /** Trace waterfall: width of the span-name column, px. */
  waterfallNameWidth: number;
  /** Trace view: width of the span detail panel, px. */
  detailWidth: number;
}

interface UiState {
  theme: ThemePref;
  project: string | null;
  /** Keyed by `<project>/<table>` so each project keeps its own layout. */
  columns: Record<string, ColumnPrefs>;
  display: DisplayPrefs;
  layout: LayoutPrefs;
  /** Target project chosen for the last import (remembered for the next drop); null: as the files say. */
  importProject: string | null;
  /** The first trace picked for a comparison (shell/ComparePick.tsx); not persisted. */
  comparePick: { project: string; traceId: string } | null;
  setTheme(theme: ThemePref): void;
  setProject(project: string): void;
  setColumns(key: string, prefs: ColumnPrefs): void;
  setDisplay(patch: Partial<DisplayPrefs>): void;
  setLayout(patch: Partial<LayoutPrefs>): void;
  setImportProject(project: string | null): void;
  setComparePick(pick: { project: string; traceId: string } | null): void;
}

export const useUi = create<UiState>()(
  persist(
    (set) => ({
      theme: 'system',
      project: null,
      columns: {},
      display: { showCosts: true, relativeTimes: true, expandToolResults: false },
      layout: { waterfallNameWidth: 300, detailWidth: 420 },
      importProject: null,
      comparePick: null,
      setTheme: (theme) => set({ theme }),
      setProject: (project) => set({ project }),
      setColumns: (key, prefs) => set((s) => ({ columns: { ...s.columns, [key]: prefs } })),
      setDisplay: (patch) => set((s) => ({ display: { ...s.display, ...patch } })),
      setLayout: (patch) => set((s) => ({ layout: { ...s.layout, ...patch } })),
      setImportProject: (importProject) => set({ importProject }),
      setComparePick: (comparePick) => set({ comparePick }),
    }),
    // Stored state from an older version lacks the newer keys: keep the defaults for those.
    { name: 'loupe.ui', version: 1, partialize: ({ comparePick: _pick, ...rest }) => rest, merge: (stored, current) => ({ ...current, ...(stored as object), layout: { ...current.layout, ...((stored as { layout?: object } | undefined)?.layout ?? {}) } }) },
  ),
);

/** The theme actually applied: 'system' follows the OS (prefers-color-scheme). */
export function resolveTheme(pref: ThemePref): 'light' | 'dark' {
  if (pref !== 'system') return pref;
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
