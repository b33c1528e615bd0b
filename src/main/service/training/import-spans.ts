/**
 * Stores the training service's spans (spans.ts) through the same importer as `POST /v1/traces`: a
 * request of a few KiB in-thread, a large one (a /log of many rollouts) parsed and normalized by the
 * ingest body worker while this thread only writes small batches.
 */
import type { ImportReport } from '../../../shared/contract/import-report.js';
import { bodyIngester } from '../ingest/body-ingest.js';
import type { ServiceContext } from '../context.js';

export async function importSpans(ctx: ServiceContext, projectId: string, request: Record<string, unknown> | Buffer): Promise<ImportReport> {
  const body = Buffer.isBuffer(request) ? request : Buffer.from(JSON.stringify(request));
  const report = await bodyIngester(ctx).import(body, { contentType: 'application/json', projectId, events: ctx.events });
  if (report.error_count) throw new Error(`training spans were not stored: ${report.errors.map((e) => e.message).join('; ')}`);
  return report;
}
