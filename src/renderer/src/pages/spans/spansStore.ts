/**
 * UI state of the Spans explorer, per project and persisted: the custom attribute columns the user
 * added and the last group-by spec (keys, chosen measures, filters, distributions). Column order and
 * visibility go through the shell's column prefs (stores/ui.ts, key `<project>/spans`).
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { emptyGroupSpec, type GroupSpec, type KeySource } from './groupModel';

export interface CustomColumn { source: Exclude<KeySource, 'field' | 'score'>; key: string }

interface SpansUi {
  customColumns: Record<string, CustomColumn[]>;
  groupSpecs: Record<string, GroupSpec>;
  addCustomColumn(project: string, c: CustomColumn): void;
  removeCustomColumn(project: string, c: CustomColumn): void;
  setGroupSpec(project: string, spec: GroupSpec): void;
}

export const useSpansUi = create<SpansUi>()(
  persist(
    (set) => ({
      customColumns: {},
      groupSpecs: {},
      addCustomColumn: (project, c) =>
        set((s) => {
          const list = s.customColumns[project] ?? [];
          if (list.some((x) => x.source === c.source && x.key === c.key)) return s;
          return { customColumns: { ...s.customColumns, [project]: [...list, c] } };
        }),
      removeCustomColumn: (project, c) =>
        set((s) => ({ customColumns: { ...s.customColumns, [project]: (s.customColumns[project] ?? []).filter((x) => !(x.source === c.source && x.key === c.key)) } })),
      setGroupSpec: (project, spec) => set((s) => ({ groupSpecs: { ...s.groupSpecs, [project]: spec } })),
    }),
    { name: 'loupe.spans', version: 1 },
  ),
);

export const customColumnId = (c: CustomColumn): string => `${c.source}.${c.key}`;
export const NO_COLUMNS: CustomColumn[] = [];
export const defaultGroupSpec = (): GroupSpec => ({
  ...emptyGroupSpec(),
  keys: [{ source: 'field', key: 'agent_name' }],
  measures: [
    { alias: 'spans', aggregation: 'count' },
    { alias: 'avg_duration_ms', aggregation: 'avg', value: { source: 'derived', key: 'duration_ms' } },
  ],
});
