/**
 * Models and jobs this window has created or opened. The training API has no "list models" or
 * "list jobs" operation (interface.md lists none), so the page remembers the ids it knows, persisted
 * per machine; everything shown about them (checkpoints, status, events) is still read from the
 * server through react-query. Opening a model by entity/project/name (create with return_existing)
 * adds one created elsewhere, e.g. by a training script.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';

export interface KnownModel { id: string; entity: string; project: string; name: string; base_model: string }
export interface KnownJob { id: string; model_id: string; kind: 'sft' | 'rl'; created_at: string; label?: string }

interface TrainingUi {
  models: KnownModel[];
  jobs: KnownJob[];
  addModel(m: KnownModel): void;
  forgetModel(id: string): void;
  addJob(j: KnownJob): void;
}

export const useTrainingUi = create<TrainingUi>()(
  persist(
    (set) => ({
      models: [],
      jobs: [],
      addModel: (m) => set((s) => ({ models: [m, ...s.models.filter((x) => x.id !== m.id)] })),
      forgetModel: (id) => set((s) => ({ models: s.models.filter((x) => x.id !== id), jobs: s.jobs.filter((j) => j.model_id !== id) })),
      addJob: (j) => set((s) => ({ jobs: [j, ...s.jobs.filter((x) => x.id !== j.id)] })),
    }),
    { name: 'loupe.training', version: 1 },
  ),
);

/** The reference chat completions accept for a model at a step (semantics §9.7). */
export function modelRef(m: KnownModel, step: number | null): string {
  const base = `${m.entity}/${m.project}/${m.name}`;
  return step === null ? base : `${base}:step${step}`;
}
