/**
 * What the server knows about its store beyond "a query answers" (issue 13.6, 13.10): whether it
 * runs read-only because the database is damaged, the free space of the disk holding the data folder,
 * and the writes that failed. Health and system-check report it; transports turn store failures into
 * 503 + Retry-After through storeFailure() (store-errors.ts) and record them here.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { errorMessage } from '../../../shared/errors.js';
import type { SpoolView } from '../ingest/spool.js';

/** Below this much free space the disk counts as full for health (SQLite needs room for WAL and checkpoints). */
export const LOW_DISK_BYTES = 64 * 1024 * 1024;

export interface DiskSpace {
  free_bytes: number;
  total_bytes: number;
  low: boolean;
}

export interface WriteFailure {
  at: string;
  kind: 'busy' | 'full' | 'read-only' | 'damaged' | 'other';
  message: string;
}

export class StoreHealth {
  /** Set when the database was found damaged: the store then refuses writes (PRAGMA query_only). */
  readOnlyReason: string | null = null;
  /** Result of the last quick_check / integrity_check: null until one ran. */
  lastCheck: { at: string; full: boolean; ok: boolean; problems: string[]; ms: number } | null = null;
  writeFailures = 0;
  lastWriteFailure: WriteFailure | null = null;

  /** How long the server thread was blocked (any cause: a parse, a write, GC), since the last look. */
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly dataDir: string) {
    this.loop.enable();
  }

  /** Event-loop delay since the last call (then reset): what a cheap request may have waited. */
  takeLoopDelay(): { max_ms: number; p99_ms: number } {
    const out = { max_ms: Math.round(this.loop.max / 1e6), p99_ms: Math.round(this.loop.percentile(99) / 1e6) };
    this.loop.reset();
    return out;
  }

  close(): void {
    this.loop.disable();
  }

  recordFailure(kind: WriteFailure['kind'], err: unknown): void {
    this.writeFailures++;
    this.lastWriteFailure = { at: new Date().toISOString(), kind, message: errorMessage(err).slice(0, 500) };
  }

  disk(): DiskSpace | null {
    try {
      const s = fs.statfsSync(this.dataDir);
      const free = s.bavail * s.bsize;
      return { free_bytes: free, total_bytes: s.blocks * s.bsize, low: free < LOW_DISK_BYTES };
    } catch {
      return null;
    }
  }

  /** Why the store cannot take writes now, or null when it can. */
  writeBlocker(): string | null {
    if (this.readOnlyReason) return this.readOnlyReason;
    const disk = this.disk();
    if (disk?.low) return `the disk holding ${this.dataDir} has ${Math.round(disk.free_bytes / 1024 / 1024)} MiB free`;
    const last = this.lastWriteFailure;
    // A write that failed for lack of space in the last minute: the disk is still (nearly) full.
    if (last?.kind === 'full' && Date.now() - Date.parse(last.at) < 60_000) return `a write failed for lack of space at ${last.at}`;
    return null;
  }
}

/** GET /app/health (contract system.health). */
export function healthView(ctx: { health?: StoreHealth; dataDir: string; traces?: { summarizing?(): number }; spool?: { status(): SpoolView } }) {
  const health = ctx.health ?? new StoreHealth(ctx.dataDir);
  const blocker = health.writeBlocker();
  return {
    database: { ok: blocker === null, read_only: health.readOnlyReason !== null, reason: blocker, last_check: health.lastCheck },
    disk: health.disk(),
    writes: { failures: health.writeFailures, last_failure: health.lastWriteFailure, summarizing: ctx.traces?.summarizing?.() ?? 0 },
    event_loop: health.takeLoopDelay(),
    spooled: ctx.spool?.status() ?? null,
  };
}
