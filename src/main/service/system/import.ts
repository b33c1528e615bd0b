/**
 * `POST /import` (semantics §11): files on this machine or one uploaded body, both streamed with
 * progress as import.progress events. An uploaded body is written to a private temp file and read
 * like a file, so its import reports progress to the end (the UI's bar follows the server's work)
 * and yields to the event loop between batches (events reach the page while it runs). A file that is
 * refused whole is reported, never thrown, so one bad file does not hide the reports of the others.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ServiceError, errorMessage } from '../../../shared/errors.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { importFile, type ImportReport } from '../ingest/index.js';
import { BODY_BATCH_SPANS, INLINE_MAX_BYTES, bodyIngester } from '../ingest/body-ingest.js';
import { DecodeBudget, checkGzipPrefix, gunzipOptions } from '../ingest/budget.js';
import { isGzip } from '../ingest/document.js';

const gunzipAsync = promisify(zlib.gunzip);

type Input = OpParsedInput<'system.import'>;
export interface FileResult {
  file: string;
  report: ImportReport | null;
  error: string | null;
}

export async function runImport(input: Input, ctx: ServiceContext): Promise<{ files: FileResult[] }> {
  if (input.paths?.length) {
    const files: FileResult[] = [];
    for (const file of input.paths) {
      const r = await importOnePath(path.resolve(file), input.project_id, ctx);
      files.push({ file: r.file, report: r.report, error: r.error });
    }
    return { files };
  }
  const body = input.content_base64 !== undefined ? Buffer.from(input.content_base64, 'base64') : Buffer.from(input.content ?? '', 'utf8');
  if (body.length === 0) {
    try {
      // Nothing to stream: the body ingester says what is wrong with an empty upload.
      return { files: [{ file: input.file_name, report: await bodyIngester(ctx).import(body, { projectId: input.project_id, events: ctx.events }), error: null }] };
    } catch (err) {
      return { files: [{ file: input.file_name, report: null, error: errorMessage(err) }] };
    }
  }
  const decoded = await checkUploadSize(body, input.file_name);
  // The file keeps its own name inside a private temp folder, so messages name it ("line 3 of traces.jsonl").
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'loupe-upload-'));
  const file = path.join(dir, path.basename(input.file_name) || 'upload');
  try {
    await fs.promises.writeFile(file, body, { mode: 0o600 });
    // A gzip upload small on the wire but large once decompressed is parsed in the worker all the same.
    const thread = decoded >= INLINE_MAX_BYTES ? 'worker' : 'auto';
    const result = await importOnePath(file, input.project_id, ctx, { shownAs: input.file_name, importId: input.import_id, thread });
    // An upload is one HTTP body: over the decode budget it is a 413, as on /v1/traces.
    if (result.status === 413) throw new ServiceError(413, result.error!);
    return { files: [{ file: input.file_name, report: result.report, error: result.error }] };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/**
 * An upload holds at most the decode budget's bytes of data, compressed or not, like an OTLP body
 * (issue 23.2: a gzip bomb uploaded here was read for 204 s). A gzip upload is decompressed once,
 * off this thread and no further than the limit, before anything of it is stored.
 */
async function checkUploadSize(body: Buffer, name: string): Promise<number> {
  const budget = new DecodeBudget(name);
  budget.bytes(body.length);
  if (!isGzip(body)) return body.length;
  checkGzipPrefix(body, 'sniff', budget);
  const options = gunzipOptions(body, budget);
  try {
    return (await gunzipAsync(body, options)).length;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw budget.over('bytes');
    return body.length; // a broken gzip is reported by the import itself, with what it could read
  }
}

async function importOnePath(
  file: string,
  projectId: string | undefined,
  ctx: ServiceContext,
  as: { shownAs?: string; importId?: string; thread?: 'auto' | 'worker' } = {},
): Promise<FileResult & { status?: number }> {
  const importId = as.importId ?? randomUUID();
  const shown = as.shownAs ?? file;
  const progress = (bytes: number, totalBytes: number | null, spans: number, done: boolean) =>
    ctx.events.emit({ type: 'import.progress', import_id: importId, file: shown, bytes, total_bytes: totalBytes, spans, done });
  try {
    const report = await importFile(ctx.traces, file, {
      // Parsed off the server thread from 256 KiB on, written in small transactions: the server keeps
      // answering while a big file imports (body-ingest.ts has the same figures for uploads).
      thread: as.thread ?? 'auto',
      workerMinBytes: INLINE_MAX_BYTES,
      batchSpans: ctx.traces.writeBatchSpans ?? BODY_BATCH_SPANS,
      projectId,
      events: ctx.events,
      onProgress: (p) => progress(p.bytes, p.totalBytes, p.spans, false),
    });
    progress(report.bytes, report.bytes, report.spans_imported + report.spans_replaced, true);
    return { file, report, error: null };
  } catch (err) {
    progress(0, null, 0, true);
    return { file, report: null, error: errorMessage(err), status: err instanceof ServiceError ? err.status : undefined };
  }
}

