import { z } from 'zod';
import { op } from './define.js';

// App-level operations beyond the interface (semantics §11): projects, import, export, settings.
export const systemOps = {
  'system.projects': op({
    method: 'POST',
    path: '/app/projects',
    auth: 'none',
    summary: 'Projects found in the store, most recently active first',
    input: z.strictObject({}),
    output: z.object({
      projects: z.array(z.object({ project_id: z.string(), span_count: z.number().int(), last_activity: z.string().nullable() })),
    }),
  }),
} as const;
