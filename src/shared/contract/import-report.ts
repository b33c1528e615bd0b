import { z } from 'zod';

/**
 * What an import did (semantics §3): counts, skip reasons, errors with line numbers (at most 20
 * listed; `error_count` has them all) and the projects the spans went to.
 */
export const ImportReport = z.object({
  /** Detected format, e.g. 'otlp-json', 'otlp-json-array', 'otlp-jsonl', 'otlp-proto', 'otlp-proto-delimited', each with '+gzip'. */
  format: z.string(),
  /** Bytes read (compressed size for gzip input). */
  bytes: z.number().int(),
  spans_imported: z.number().int(),
  spans_replaced: z.number().int(),
  spans_skipped: z.number().int(),
  skipped_reasons: z.record(z.string(), z.number().int()),
  non_trace_lines_skipped: z.number().int(),
  error_count: z.number().int(),
  errors: z.array(z.object({ line: z.number().int().nullable(), message: z.string() })).max(20),
  projects: z.array(z.string()),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const MAX_LISTED_ERRORS = 20;
