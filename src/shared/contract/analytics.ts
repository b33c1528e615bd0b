import { op } from './define.js';
import { z } from 'zod';

// Operations of this domain. Owned by the analytics work stream; see contract/index.ts.
export const analyticsOps = {} as const satisfies Record<string, ReturnType<typeof op>>;
void z;
