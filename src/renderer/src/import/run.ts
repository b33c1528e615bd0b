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

export async function importFiles(files: File[], update: (job: FileImport) => void): Promise<void> {
  const jobs: FileImport[] = files.map((f) => ({ id: `imp-${++seq}`, name: f.name, size: f.size, state: 'queued', fraction: 0, spans: 0, report: null, error: null }));
  jobs.forEach(update);
  for (let i = 0; i < files.length; i++) {
    let job: FileImport = { ...jobs[i]!, state: 'running' };
    update(job);
    try {
      const report = await uploadOne(files[i]!, (fraction, spans) => {
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
 * then sends it to 'system.import'. Reading is the first 40% of the bar; the server's
 * import.progress events for this file name (bytes parsed of total) fill the rest.
 */
async function uploadOne(file: File, progress: (fraction: number, spans: number) => void): Promise<ImportReport> {
  const base64 = await readBase64(file, (f) => progress(0.4 * f, 0));
  progress(0.4, 0);
  const off = subscribe((e) => {
    if (e.type !== 'import.progress' || e.file !== file.name) return;
    const f = e.total_bytes ? e.bytes / e.total_bytes : 0;
    progress(0.4 + 0.6 * Math.min(1, f), e.spans);
  });
  try {
    const res = await call('system.import', { content_base64: base64, file_name: file.name });
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
      const url = String(reader.result);
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
