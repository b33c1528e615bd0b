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
}

let seq = 0;
/** Reading the file in the page is this share of the bar; the server's work is the rest. */
const READ_SHARE = 0.2;

/** "12 spans", or "12 spans (5 already stored, replaced)" when some were there before. */
export function spansText(r: Pick<ImportReport, 'spans_imported' | 'spans_replaced'>): string {
  const n = r.spans_imported + r.spans_replaced;
  const base = `${n.toLocaleString('en-US')} span${n === 1 ? '' : 's'}`;
  return r.spans_replaced ? `${base} (${r.spans_replaced.toLocaleString('en-US')} already stored, replaced)` : base;
}

/** `project`: the target project for every span of these files; null: as the files say (else local/default). */
export async function importFiles(files: File[], project: string | null, update: (job: FileImport) => void): Promise<void> {
  const jobs: FileImport[] = files.map((f) => ({ id: `imp-${Date.now().toString(36)}-${++seq}`, name: f.name, size: f.size, state: 'queued', fraction: 0, spans: 0, report: null, error: null }));
  jobs.forEach(update);
  for (let i = 0; i < files.length; i++) {
    let job: FileImport = { ...jobs[i]!, state: 'running' };
    update(job);
    try {
      const report = await uploadOne(files[i]!, job.id, project, (fraction, spans) => {
        job = { ...job, fraction, spans };
        update(job);
      });
      job = { ...job, state: 'done', fraction: 1, report, spans: report.spans_imported + report.spans_replaced };
    } catch (e) {
      job = { ...job, state: 'failed', fraction: 1, error: (e as Error).message };
    }
    update(job);
  }
}

/**
 * Reads the file as base64 (the server detects the format: OTLP JSON/JSONL/protobuf, gzip or not),
 * then sends it to 'system.import' with this job's id. Reading is the first 20% of the bar; the
 * server's import.progress events for that id (bytes parsed of total, spans stored) fill the rest
 * as the server works, up to its `done`.
 */
async function uploadOne(file: File, importId: string, project: string | null, progress: (fraction: number, spans: number) => void): Promise<ImportReport> {
  const base64 = await readBase64(file, (f) => progress(READ_SHARE * f, 0));
  progress(READ_SHARE, 0);
  const off = subscribe((e) => {
    if (e.type !== 'import.progress' || e.import_id !== importId) return;
    const f = e.done ? 1 : e.total_bytes ? e.bytes / e.total_bytes : 0;
    progress(READ_SHARE + (1 - READ_SHARE) * Math.min(1, f), e.spans);
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
