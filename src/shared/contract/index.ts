/**
 * The whole contract: every operation once. Each domain keeps its operations in its own file;
 * this index is the only place they are combined. Operation names are `<domain>.<verb>`.
 * Duplicate names or routes fail at module load (see assertUniqueRoutes).
 */
import type { z } from 'zod';
import type { OpDef } from './define.js';
import { chatOps } from './chat.js';
import { feedbackOps } from './feedback.js';
import { analyticsOps } from './analytics.js';
import { trainingOps } from './training.js';
import { systemOps } from './system.js';
import { timelineOps } from './timeline.js';
import { conversationOps } from './conversations.js';
import { retentionOps } from './retention.js';
import { mcpOps } from './mcp.js';
import { replayOps } from './replays.js';
import { scoreOps } from './scores.js';
import { scorerOps } from './scorers.js';
import { clusterOps } from './clusters.js';

export const contract = {
  ...chatOps,
  ...feedbackOps,
  ...analyticsOps,
  ...trainingOps,
  ...systemOps,
  ...timelineOps,
  ...conversationOps,
  ...retentionOps,
  ...mcpOps,
  ...replayOps,
  ...scoreOps,
  ...scorerOps,
  ...clusterOps,
} as const;

export type Contract = typeof contract;
export type OpName = keyof Contract;
export type OpInput<K extends OpName> = z.input<Contract[K]['input']>;
export type OpParsedInput<K extends OpName> = z.output<Contract[K]['input']>;
export type OpOutput<K extends OpName> = z.input<Contract[K]['output']>;

function assertUniqueRoutes(ops: Record<string, OpDef>): void {
  const seen = new Map<string, string>();
  const groups = [chatOps, feedbackOps, analyticsOps, trainingOps, systemOps, timelineOps, conversationOps, retentionOps, mcpOps, replayOps, scoreOps, scorerOps, clusterOps] as Record<string, OpDef>[];
  const names = groups.flatMap((g) => Object.keys(g));
  const dupName = names.find((n, i) => names.indexOf(n) !== i);
  if (dupName) throw new Error(`contract: operation ${dupName} is defined twice`);
  for (const [name, def] of Object.entries(ops)) {
    for (const p of [def.path, ...(def.aliases ?? [])]) {
      const key = `${def.method} ${p.replace(/:[^/]+/g, ':')}`;
      const other = seen.get(key);
      if (other) throw new Error(`contract: ${name} and ${other} both answer ${def.method} ${p}`);
      seen.set(key, name);
    }
  }
}
assertUniqueRoutes(contract);
