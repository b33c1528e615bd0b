import { op } from './define.js';
import { z } from 'zod';

// Operations of this domain. Owned by the chat work stream; see contract/index.ts.
export const chatOps = {} as const satisfies Record<string, ReturnType<typeof op>>;
void z;
