/**
 * Runs imports: files one after another (the store takes one writer at a time anyway), each with a
 * progress fraction (upload progress, then the server's import.progress events) and the final report.
 */
import type { ImportReport } from '../../../shared/contract/import-report';
import { call } from '../api/client';
import { subscribe } from '../api/events';

export interface FileImport {
  id: string;
  name: string;
  size: number;
  state: 'queued' | 'running' | 'done' | 'failed';
  fraction: number;
  spans: number;
  report: ImportReport | null;
  error: string | null;
  /** The server has read the whole file and is still storing or summarising it (the bar holds short of full). */
  finishing: boolean;
  /** Finished without an error but not as hoped: a file that held no spans. */
  warning: string | null;
}

let seq = 0;
/** Reading the file in the page is this share of the bar; the server's work is the rest. */
const READ_SHARE = 0.2;
/**
 * The server's bytes count what it has read; storing and summarising the last of it comes after, so
 * the bar stops here until the server says it is done (it used to sit at 100 % for seconds, issue 22.11).
 */
const BEFORE_DONE = 0.95;

/** Why a file that imported without errors deserves a warning, or null. */
export function emptyWarning(r: ImportReport): string | null {
  if (r.spans_imported + r.spans_replaced + r.spans_skipped > 0 || r.error_count > 0) return null;
  return r.non_trace_lines_skipped
    ? `no spans found: its ${r.non_trace_lines_skipped.toLocaleString('en-US')} line${r.non_trace_lines_skipped === 1 ? ' is' : 's are'} not OTLP traces`
    : 'no spans found in this file';
}

/** "12 spans", or "12 spans (5 already stored, replaced)" when some were there before. */
export function spansText(r: Pick<ImportReport, 'spans_imported' | 'spans_replaced'>): string {
  const n = r.spans_imported + r.spans_replaced;
  const base = `${n.toLocaleString('en-US')} span${n === 1 ? '' : 's'}`;
  return r.spans_replaced ? `${base} (${r.spans_replaced.toLocaleString('en-US')} already stored, replaced)` : base;
}

/** `project`: the target project for every span of these files; null: as the files say (else local/default). */
export async function importFiles(files: File[], project: string | null, update: (job: FileImport) => void): Promise<void> {
  const jobs: FileImport[] = files.map((f) => ({ id: `imp-${Date.now().toString(36)}-${++seq}`, name: f.name, size: f.size, state: 'queued', fraction: 0, spans: 0, report: null, error: null, finishing: false, warning: null }));
  jobs.forEach(update);
  for (let i = 0; i < files.length; i++) {
    let job: FileImport = { ...jobs[i]!, state: 'running' };
    update(job);
    try {
      const report = await uploadOne(files[i]!, job.id, project, (fraction, spans, finishing) => {
        job = { ...job, fraction, spans, finishing };
        update(job);
      });
      job = { ...job, state: 'done', fraction: 1, finishing: false, report, spans: report.spans_imported + report.spans_replaced, warning: emptyWarning(report) };
    } catch (e) {
      job = { ...job, state: 'failed', fraction: 1, finishing: false, error: (e as Error).message };
    }
    update(job);
  }
}

/**
 * Reads the file as base64 (the server detects the format: OTLP JSON/JSONL/protobuf, gzip or not),
 * then sends it to 'system.import' with this job's id. Reading is the first 20% of the bar; the
 * server's import.progress events for that id (bytes parsed of total, spans stored) fill the rest
 * as the server works, short of full until its `done` (BEFORE_DONE).
 */
async function uploadOne(file: File, importId: string, project: string | null, progress: (fraction: number, spans: number, finishing: boolean) => void): Promise<ImportReport> {
  const base64 = await readBase64(file, (f) => progress(READ_SHARE * f, 0, false));
  progress(READ_SHARE, 0, false);
  const off = subscribe((e) => {
    if (e.type !== 'import.progress' || e.import_id !== importId) return;
    const read = e.total_bytes ? Math.min(1, e.bytes / e.total_bytes) : 0;
    const f = e.done ? 1 : BEFORE_DONE * read;
    progress(READ_SHARE + (1 - READ_SHARE) * f, e.spans, !e.done && read >= 1);
  });
  try {
    const res = await call('system.import', { content_base64: base64, file_name: file.name, import_id: importId, ...(project ? { project_id: project } : {}) });
    const r = res.files[0];
    if (!r) throw new Error('the server returned no result for this file');
    if (r.error) throw new Error(r.error);
    if (!r.report) throw new Error('the server returned no report for this file');
    return r.report;
  } finally {
    off();
  }
}

function readBase64(file: File, progress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (e) => { if (e.lengthComputable && e.total) progress(e.loaded / e.total); };
    reader.onerror = () => reject(new Error(`could not read ${file.name}: ${reader.error?.message ?? 'unknown error'}`));
    reader.onload = () => {
      // readAsDataURL always yields a string; anything else is a browser fault worth naming.
      if (typeof reader.result !== 'string') return reject(new Error(`could not read ${file.name}: the browser returned no data URL`));
      const url = reader.result;
      resolve(url.slice(url.indexOf(',') + 1)); // strip "data:<type>;base64,"
    };
    reader.readAsDataURL(file);
  });
}

/** Loads the demo conversations; returns the project they went to. */
export async function loadDemo(): Promise<string> {
  const res = await call('system.loadDemo', {});
  return res.project_id;
}
