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
import { errorMessage } from '../../../shared/errors.js';
import type { OpParsedInput } from '../../../shared/contract/index.js';
import type { ServiceContext } from '../context.js';
import { importFile, type ImportReport } from '../ingest/index.js';
import { BODY_BATCH_SPANS, INLINE_MAX_BYTES, bodyIngester } from '../ingest/body-ingest.js';

type Input = OpParsedInput<'system.import'>;
export interface FileResult {
  file: string;
  report: ImportReport | null;
  error: string | null;
}

export async function runImport(input: Input, ctx: ServiceContext): Promise<{ files: FileResult[] }> {
  if (input.paths?.length) {
    const files: FileResult[] = [];
    for (const file of input.paths) files.push(await importOnePath(path.resolve(file), input.project_id, ctx));
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
  // The file keeps its own name inside a private temp folder, so messages name it ("line 3 of traces.jsonl").
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'loupe-upload-'));
  const file = path.join(dir, path.basename(input.file_name) || 'upload');
  try {
    await fs.promises.writeFile(file, body, { mode: 0o600 });
    const result = await importOnePath(file, input.project_id, ctx, { shownAs: input.file_name, importId: input.import_id });
    return { files: [{ ...result, file: input.file_name }] };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

async function importOnePath(file: string, projectId: string | undefined, ctx: ServiceContext, as: { shownAs?: string; importId?: string } = {}): Promise<FileResult> {
  const importId = as.importId ?? randomUUID();
  const shown = as.shownAs ?? file;
  const progress = (bytes: number, totalBytes: number | null, spans: number, done: boolean) =>
    ctx.events.emit({ type: 'import.progress', import_id: importId, file: shown, bytes, total_bytes: totalBytes, spans, done });
  try {
    const report = await importFile(ctx.traces, file, {
      // Parsed off the server thread from 256 KiB on, written in small transactions: the server keeps
      // answering while a big file imports (body-ingest.ts has the same figures for uploads).
      thread: 'auto',
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
    return { file, report: null, error: errorMessage(err) };
  }
}

