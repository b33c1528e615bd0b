/**
 * The WAL policy of the writer connection (issue 23.3; docs/store.md "The WAL"). SQLite's defaults
 * let the WAL file grow to its high-water mark and stay there: a running server kept ≥ 256 MiB
 * (`wal_autocheckpoint` counts pages, and 16,384 of them was sized for 4 KiB pages while stores use
 * 16 KiB ones), and on a small disk that file alone was the "disk full". Now:
 * - SQLite checkpoints (PASSIVE, never waiting for readers) once the WAL holds CHECKPOINT_BYTES;
 * - once a checkpoint let the WAL start over, its file is cut back to CAP_BYTES (`journal_size_limit`);
 * - after a write that left the file over CAP_BYTES (readers kept every checkpoint from starting the
 *   WAL over), the writer checkpoints and truncates it at once, waiting at most WAIT_MS for readers;
 * - after IDLE_MS without a write of this connection the WAL is checkpointed and truncated to 0 bytes,
 *   tried again later (up to a minute apart) while readers or another process's writer keep it busy.
 * Only the writer thread runs this (one writer connection per store); errors of a checkpoint (a full
 * disk, a busy file) are never the write's: the write already committed.
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';

/** open.ts's Db, named here from the library (open.ts imports this file). */
type Db = Database.Database;

const MiB = 1024 * 1024;

export const WAL_POLICY = {
  /** The documented cap of the WAL file. */
  capBytes: 64 * MiB,
  /** The WAL size at which SQLite checkpoints after a commit (`wal_autocheckpoint`, in bytes here). */
  checkpointBytes: 32 * MiB,
  /** Without a write of this connection for this long, the WAL is truncated to 0 bytes. */
  idleMs: 2_000,
  /** The longest a checkpoint of this policy waits for readers (the writer waits meanwhile). */
  waitMs: 100,
  /** The longest between two tries of an idle truncation that readers kept busy. */
  maxRetryMs: 60_000,
} as const;

export type WalPolicy = { [K in keyof typeof WAL_POLICY]: number };

/** The pragmas of the policy, for a writer connection in WAL mode. */
export function applyWalPragmas(db: Db, policy: WalPolicy = WAL_POLICY): void {
  const page = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(policy.checkpointBytes / page))}`);
  db.pragma(`journal_size_limit = ${policy.capBytes}`);
}

export interface WalKeeper {
  /** After every message the writer handled (a call or a batch): checks the cap, arms the idle truncation. */
  afterWrite(): void;
  /** The WAL file's size now (0 when absent). */
  size(): number;
  /** Truncations done so far (for tests and health). */
  readonly truncations: number;
  stop(): void;
}

/** Keeps the WAL of `file` within the policy; `db` is its writer connection. */
export function keepWalSmall(db: Db, file: string, policy: WalPolicy = WAL_POLICY, log: (m: string) => void = () => undefined): WalKeeper {
  const walFile = `${file}-wal`;
  const changes = db.prepare('SELECT total_changes()').pluck();
  const size = () => {
    try {
      return fs.statSync(walFile).size;
    } catch {
      return 0;
    }
  };
  let timer: NodeJS.Timeout | null = null;
  let seen = -1;
  let retryMs = policy.idleMs;
  let lastCapTry = 0;
  let truncations = 0;
  let stopped = false;
  let warned = false;

  /** TRUNCATE checkpoint waiting at most waitMs: true when the WAL is now empty. */
  const truncate = (): boolean => {
    const wait = db.pragma('busy_timeout', { simple: true }) as number;
    try {
      db.pragma(`busy_timeout = ${policy.waitMs}`);
      const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
      if (row?.busy) return false;
      truncations++;
      return true;
    } catch (e) {
      // A full disk (the checkpoint grows the database file) or I/O: the WAL stays as it is, the
      // data in it is safe; said once, tried again later.
      if (!warned) log(`the WAL could not be checkpointed (${(e as Error).message}); tried again later`);
      warned = true;
      return false;
    } finally {
      db.pragma(`busy_timeout = ${wait}`);
    }
  };

  const arm = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(onIdle, ms);
    timer.unref();
  };

  function onIdle(): void {
    timer = null;
    if (!db.open) return;
    const now = changes.get() as number;
    if (now !== seen) {
      // Written since the last look: not idle yet.
      seen = now;
      retryMs = policy.idleMs;
      return arm(policy.idleMs);
    }
    if (size() === 0) return;
    if (truncate()) {
      retryMs = policy.idleMs;
      return;
    }
    retryMs = Math.min(retryMs * 2, policy.maxRetryMs);
    arm(retryMs);
  }

  return {
    afterWrite() {
      if (stopped || !db.open) return;
      if (size() > policy.capBytes && Date.now() - lastCapTry >= 1_000) {
        lastCapTry = Date.now();
        truncate();
      }
      if (!timer) {
        seen = changes.get() as number;
        arm(policy.idleMs);
      }
    },
    size,
    get truncations() {
      return truncations;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
