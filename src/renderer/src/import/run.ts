/**
 * Runs imports: files one after another (the store takes one writer at a time anyway), each with a
 * progress fraction (upload progress, then the server's import.progress events) and the final report.
 */
import type { ImportReport } from '../../../shared/contract/import-report';

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

/** Filled in against the system stream's import operation. */
async function uploadOne(file: File, progress: (fraction: number, spans: number) => void): Promise<ImportReport> {
  void file;
  progress(0, 0);
  throw new Error('import is not available yet');
}

export async function loadDemo(): Promise<void> {
  throw new Error('demo data is not available yet');
}
