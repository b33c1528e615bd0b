/** spans.delete and system.storage (contract/retention.ts). */
import type { Handlers } from '../handler-types.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { DeleteSelection } from '../../store/ports.js';
import { nsFromIso } from '../../domain/time.js';

export function deleteSelection(input: OpParsedInput<'spans.delete'>): DeleteSelection {
  if (input.max_bytes !== undefined) return { kind: 'size_cap', max_bytes: input.max_bytes };
  if (input.older_than !== undefined) return { kind: 'older_than', project_id: input.project_id ?? null, before_ns: nsFromIso(input.older_than)! };
  if (input.trace_ids) return { kind: 'traces', project_id: input.project_id!, trace_ids: input.trace_ids };
  return { kind: 'project', project_id: input.project_id! };
}

export const retentionHandlers = {
  'spans.delete': async (input, ctx) => {
    const result = await ctx.traces.deleteSpans(deleteSelection(input));
    for (const project_id of result.projects) ctx.events.emit({ type: 'data.changed', project_id, tables: ['spans'] });
    return result;
  },
  'system.storage': (_input, ctx, call) => ctx.traces.storageStats(call),
} satisfies Partial<Handlers>;
