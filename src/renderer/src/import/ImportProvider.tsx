/**
 * ImportProvider — app-wide import: files dropped anywhere on the window, or chosen with the Import
 * button / `i` key, are imported one after another with a progress bar each and a summary (spans
 * imported, replaced, skipped; errors with line numbers). Also provides AppActions (load demo,
 * open import) to EmptyState and the sidebar. New data appears through live refresh (data.changed).
 */
import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import { AppActionsContext } from '../components/EmptyState';
import { ImportPanel } from './ImportPanel';
import { useDropAnywhere } from './useDropAnywhere';
import { importFiles, loadDemo, type FileImport } from './run';
import { ImportDialog } from './ImportDialog';
import { queryClient } from '../api/query';
import { useNavigate } from 'react-router-dom';
import { projectPath } from '../hooks/project';

export function ImportProvider({ children }: { children: ReactNode }) {
  const [jobs, setJobs] = useState<FileImport[]>([]);
  const [demoLoading, setDemoLoading] = useState(false);
  const [demoError, setDemoError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();

  // Dropped or picked files wait here until the user chose their project (ImportDialog).
  const [pending, setPending] = useState<File[] | null>(null);
  const start = useCallback((files: File[]) => {
    if (files.length) setPending(files);
  }, []);
  const run = useCallback((files: File[], project: string | null) => {
    void importFiles(files, project, (job) =>
      setJobs((all) => {
        const i = all.findIndex((j) => j.id === job.id);
        if (i < 0) return [...all, job];
        const next = all.slice();
        next[i] = job;
        return next;
      }),
    );
  }, []);
  const dragging = useDropAnywhere(start);

  const actions = useMemo(
    () => ({
      demoLoading,
      openImport: () => inputRef.current?.click(),
      loadDemo: () => {
        setDemoLoading(true);
        setDemoError(null);
        loadDemo()
          .then((project) => {
            void queryClient.invalidateQueries();
            void navigate(projectPath(project, 'conversations'));
          })
          .catch((e: Error) => setDemoError(e.message))
          .finally(() => setDemoLoading(false));
      },
    }),
    [demoLoading, navigate],
  );

  return (
    <AppActionsContext.Provider value={actions}>
      {children}
      <input
        ref={inputRef}
        type="file"
        multiple
        hidden
        data-testid="import-input"
        onChange={(e) => {
          start([...(e.target.files ?? [])]);
          e.target.value = '';
        }}
      />
      {dragging && <div className="dropzone-veil" data-testid="drop-veil">Drop trace files to import</div>}
      {pending && (
        <ImportDialog
          files={pending}
          onCancel={() => setPending(null)}
          onImport={(project) => { run(pending, project); setPending(null); }}
        />
      )}
      {(jobs.length > 0 || demoError) && <ImportPanel jobs={jobs} demoError={demoError} onClose={() => { setJobs([]); setDemoError(null); }} />}
    </AppActionsContext.Provider>
  );
}
