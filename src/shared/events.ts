/**
 * Push events from the service to views: one `data.changed` drives live refresh (a write announces
 * what it touched; views refetch by that), plus progress of imports and training jobs.
 * Delivered over IPC (`onEvent`) in Electron and as server-sent events on `GET /events` over HTTP.
 */
export type LoupeEvent =
  /** `project_id: null`: another process changed the data folder and which project is unknown (refresh all). */
  | { type: 'data.changed'; project_id: string | null; tables: string[] }
  | { type: 'import.progress'; import_id: string; file: string; bytes: number; total_bytes: number | null; spans: number; done: boolean }
  /** The OTLP spool's backlog changed (a large body kept, or imported): what the status line shows. */
  | { type: 'spool.status'; bodies: number; spans: number; held: boolean }
  | { type: 'job.event'; job_id: string; model_id: string; event: { id: string; type: string; data: Record<string, unknown>; created_at: string } }
  | { type: 'job.status'; job_id: string; model_id: string; status: string }
  /**
   * A command from the desktop app's menu (File → Import…, Load demo data; View → Toggle theme),
   * sent by Electron main to its own window only; the renderer acts as if the user pressed the button.
   */
  | { type: 'ui.command'; command: UiCommand };

export const UI_COMMANDS = ['import', 'load-demo', 'toggle-theme'] as const;
export type UiCommand = (typeof UI_COMMANDS)[number];

export type LoupeEventType = LoupeEvent['type'];
