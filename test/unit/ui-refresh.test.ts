/** Live refresh (shared/live-refresh.ts, used by the renderer's api/query.ts): a data.changed event makes stale only the queries that read a changed table of the changed project. */
import { describe, expect, it } from 'vitest';
import { isStale } from '../../src/shared/live-refresh.js';

const changed = (project: string, ...tables: string[]) => new Map([[project, new Set(tables)]]);

describe('which queries a data.changed refetches', () => {
  it('feedback refetches chat views and feedback lists of that project only', () => {
    const c = changed('p', 'feedback');
    expect(isStale(['chat.conversation', { project_id: 'p' }], c)).toBe(true);
    expect(isStale(['chat.trace', { project_id: 'p' }], c)).toBe(true);
    expect(isStale(['feedback.query', { project_id: 'p' }], c)).toBe(true);
    for (const op of ['conversations.list', 'spans.query', 'agents.query', 'threads.query', 'traces.timeline', 'system.projects']) {
      expect(isStale([op, { project_id: 'p' }], c), op).toBe(false);
    }
    expect(isStale(['chat.conversation', { project_id: 'other' }], c)).toBe(false);
  });

  it('new spans refetch every span reader of that project, and project-less queries of any project', () => {
    const c = changed('p', 'spans');
    for (const op of ['conversations.list', 'conversations.facets', 'spans.query', 'agents.query', 'threads.query', 'chat.trace']) {
      expect(isStale([op, { project_id: 'p' }], c), op).toBe(true);
      expect(isStale([op, { project_id: 'q' }], c), op).toBe(false);
    }
    expect(isStale(['feedback.query', { project_id: 'p' }], c)).toBe(false);
    expect(isStale(['system.projects', {}], c)).toBe(true);
    // An operation with no declared tables refreshes on every change (the safe default).
    expect(isStale(['training.listModels', {}], c)).toBe(true);
  });
});
