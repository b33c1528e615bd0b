/**
 * UI state of the review queue, per project and persisted: who reviews (the `creator` of the labels),
 * the project's label set, and where the walk is (per selection), so a reload resumes.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';

interface ReviewUi {
  reviewer: string;
  labels: Record<string, string[]>;
  positions: Record<string, number>;
  setReviewer(name: string): void;
  setLabels(project: string, labels: string[]): void;
  setPosition(key: string, i: number): void;
}

export const DEFAULT_LABELS = ['correct', 'wrong answer', 'wrong tool', 'incomplete'];

export const useReviewUi = create<ReviewUi>()(
  persist(
    (set) => ({
      reviewer: 'me',
      labels: {},
      positions: {},
      setReviewer: (reviewer) => set({ reviewer }),
      setLabels: (project, labels) => set((s) => ({ labels: { ...s.labels, [project]: labels } })),
      setPosition: (key, i) => set((s) => ({ positions: { ...s.positions, [key]: i } })),
    }),
    { name: 'loupe.review', version: 1 },
  ),
);
