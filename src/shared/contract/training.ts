import { op } from './define.js';
import { z } from 'zod';

// Operations of this domain. Owned by the training work stream; see contract/index.ts.
export const trainingOps = {} as const satisfies Record<string, ReturnType<typeof op>>;
void z;
