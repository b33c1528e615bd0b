import { z } from 'zod';
import { op } from './define.js';
import { ImportReport } from './import-report.js';
import { knownSettingKeys, redirectingChange, settingDef } from '../settings.js';

// App-level operations beyond the interface (semantics §11): projects, import, export, settings, demo data.

const ProjectId = z.string().min(1);
/**
 * The settings to change. Every key is checked against the declared settings (shared/settings.ts)
 * on the raw input, before zod builds the record: a record built by assignment silently drops
 * `__proto__`, and `constructor` would pass any name pattern. Unknown keys are a 422 naming each.
 */
const SettingValues = z.preprocess(
  (raw, ctx) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
    for (const key of Object.keys(raw)) {
      if (settingDef(key)) continue;
      ctx.issues.push({ code: 'custom', path: [key], input: key, message: `Unknown setting "${key.slice(0, 80)}" (known: ${knownSettingKeys().join(', ')})` });
    }
    return raw;
  },
  z.record(z.string(), z.string().max(65_536).nullable()),
);

export const ImportFileResult = z.object({
  /** The path given, or `file_name` for an uploaded body. */
  file: z.string(),
  report: ImportReport.nullable(),
  /** Why the whole file was refused (not a trace file, unreadable...), else null. */
  error: z.string().nullable(),
});

export const SettingsView = z.object({
  data_dir: z.string(),
  /** The data folder's SQLite file (feedback, settings, training; spans too when trace_store is sqlite). */
  database_file: z.string(),
  /** Where the spans live: 'sqlite' (database_file) or 'clickhouse' (its URL, password masked). */
  trace_store: z.object({ adapter: z.string(), location: z.string() }),
  database_bytes: z.number().int(),
  training_key_file: z.string(),
  values: z.record(z.string(), z.string()),
});

const IntegrityCheck = z.object({
  at: z.string(),
  /** true: integrity_check (every index entry against its row); false: quick_check. */
  full: z.boolean(),
  ok: z.boolean(),
  /** What SQLite listed (at most 100). */
  problems: z.array(z.string()),
  ms: z.number().int(),
});

/** Large OTLP bodies acknowledged and not yet imported (docs/ingest.md "The OTLP spool"). */
export const SpoolView = z.object({
  bodies: z.number().int(),
  spans: z.number().int(),
  bytes: z.number().int(),
  /** Age of the oldest body waiting, null when none. */
  oldest_age_s: z.number().nullable(),
  /** Spans of the body being imported now (0 when none). */
  importing_spans: z.number().int(),
  /** Bodies the import refused for what they hold (kept in spool/failed/ with the reason). */
  failed: z.number().int(),
  /** The last drain failure, kept until a body imports; null when none. */
  last_error: z.string().nullable(),
  /** Draining is off (LOUPE_SPOOL_DRAIN=0): bodies wait for a start with it on. */
  held: z.boolean(),
});

export const StoreHealthView = z.object({
  database: z.object({
    /** Writes are accepted now (not read-only, disk not full, no recent failure for lack of space). */
    ok: z.boolean(),
    read_only: z.boolean(),
    /** Why writes are refused, or null. */
    reason: z.string().nullable(),
    last_check: IntegrityCheck.nullable(),
  }),
  disk: z.object({ free_bytes: z.number(), total_bytes: z.number(), low: z.boolean() }).nullable(),
  writes: z.object({
    failures: z.number().int(),
    last_failure: z.object({ at: z.string(), kind: z.string(), message: z.string() }).nullable(),
    /**
     * Batches whose spans are stored and whose summaries (lists, agents, group-by rollups) are still
     * being written: a ClickHouse store answers imports and OTLP posts before it (0 on SQLite).
     */
    summarizing: z.number().int(),
  }),
  /** The server thread's event-loop delay since the previous health read (then reset): the longest wait a request could have had. */
  event_loop: z.object({ max_ms: z.number(), p99_ms: z.number() }),
  /** The OTLP spool's backlog; null when the server spools nothing (LOUPE_SPOOL=off). */
  spooled: SpoolView.nullable(),
});

export const systemOps = {
  'system.session': op({
    method: 'POST',
    path: '/app/session',
    auth: 'none',
    summary: 'Exchange a one-time login code (the link loupe serve prints) for the API key, for the page served by this server',
    input: z.strictObject({ code: z.string().min(1).max(200) }),
    output: z.object({ key: z.string() }),
  }),
  'system.eventsTicket': op({
    method: 'POST',
    path: '/app/events-ticket',
    auth: 'key',
    summary: 'A ticket that opens GET /events?ticket=… and nothing else (browsers cannot send a header with EventSource)',
    input: z.strictObject({}),
    output: z.object({ ticket: z.string() }),
  }),
  'system.loginLink': op({
    method: 'POST',
    path: '/app/login-link',
    auth: 'key',
    summary: 'A fresh one-time login link to open this server in a browser (loupe url, the desktop app attaching)',
    input: z.strictObject({}),
    output: z.object({ url: z.string() }),
  }),
  'system.health': op({
    method: 'GET',
    path: '/app/health',
    auth: 'none',
    summary: 'The store: read-only mode and why, the last database check, disk space of the data folder, failed writes',
    input: z.strictObject({}),
    output: StoreHealthView,
  }),
  'system.spoolDrained': op({
    method: 'POST',
    path: '/app/spool/drained',
    auth: 'none',
    summary: 'Wait (up to timeout_ms) until every spooled OTLP body is imported and the store has written its summaries; answers the backlog either way',
    input: z.strictObject({ timeout_ms: z.number().int().min(0).max(600_000).default(60_000) }),
    output: z.object({ drained: z.boolean(), spooled: SpoolView.nullable() }),
  }),
  'system.checkIntegrity': op({
    method: 'POST',
    path: '/app/integrity-check',
    auth: 'none',
    summary: 'Check the database file (integrity_check, or quick_check with full: false) off the main thread; damage switches the server to read-only',
    input: z.strictObject({ full: z.boolean().default(true) }),
    output: IntegrityCheck.extend({ read_only: z.boolean() }),
  }),
  'system.projects': op({
    method: 'POST',
    path: '/app/projects',
    auth: 'none',
    summary: 'Projects found in the store, most recently active first',
    input: z.strictObject({}),
    output: z.object({
      projects: z.array(z.object({ project_id: z.string(), span_count: z.number().int(), last_activity: z.string().nullable() })),
    }),
  }),
  'system.import': op({
    method: 'POST',
    path: '/import',
    auth: 'none',
    summary: 'Import trace files: paths on this machine, or one uploaded body (text, or base64 for binary/gzip)',
    input: z
      .strictObject({
        paths: z.array(z.string().min(1)).max(1000).optional(),
        content: z.string().optional(),
        content_base64: z.string().optional(),
        file_name: z.string().default('upload'),
        project_id: ProjectId.optional(),
        /** Names this import in its import.progress events, so the caller can follow its own upload (default: a random id). */
        import_id: z.string().min(1).max(100).optional(),
      })
      .refine((v) => [v.paths?.length ? 1 : 0, v.content !== undefined ? 1 : 0, v.content_base64 !== undefined ? 1 : 0].reduce((a, b) => a + b) === 1, {
        message: 'Give exactly one of paths, content or content_base64',
      }),
    output: z.object({ files: z.array(ImportFileResult) }),
    // Reading paths on this machine tells whether a file exists and what starts it: the user's only.
    keyFor: (input) => (input.paths?.length ? 'importing files by path' : null),
    keyForDoc: 'files by path',
    // Uploaded bodies: the OTLP cap (64 MiB) plus base64 overhead.
    maxBodyBytes: 90 * 1024 * 1024,
  }),
  'system.export': op({
    method: 'POST',
    path: '/export',
    auth: 'none',
    summary: 'Export spans as OTLP JSON Lines (one ExportTraceServiceRequest per trace), re-importable by any OTLP tool',
    input: z.strictObject({
      project_id: ProjectId,
      conversation_ids: z.array(z.string()).max(10_000).optional(),
      trace_ids: z.array(z.string()).max(10_000).optional(),
    }),
    output: z.object({ resourceSpans: z.array(z.unknown()) }),
    stream: 'jsonl',
  }),
  'system.getSettings': op({
    method: 'GET',
    path: '/app/settings',
    auth: 'none',
    summary: 'Where the data lives, the database size, and the stored settings',
    input: z.strictObject({}),
    output: SettingsView,
  }),
  'system.setSettings': op({
    method: 'POST',
    path: '/app/settings',
    auth: 'none',
    summary: 'Set (string) or remove (null) settings; returns the settings view',
    input: z.strictObject({ values: SettingValues }),
    output: SettingsView,
    // Where spans go and where Loupe listens are the user's to change, not any local account's (issue 23.1).
    keyFor: (input) => redirectingChange(Object.keys(input.values)),
    keyForDoc: 'settings that move where data goes or where Loupe listens (store.url, server.port)',
  }),
  'system.loadDemo': op({
    method: 'POST',
    path: '/app/demo',
    auth: 'none',
    summary: 'Load the demo conversations (multi-agent, tool calls, reasoning, an error, a compaction, feedback)',
    input: z.strictObject({ seed: z.number().int().min(0).default(1187), project_id: ProjectId.default('local/demo') }),
    output: z.object({ project_id: z.string(), conversations: z.number().int(), traces: z.number().int(), spans: z.number().int(), feedback: z.number().int() }),
  }),
} as const;
