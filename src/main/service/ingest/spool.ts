/**
 * The OTLP spool (decision 0025, issue 19): a large OTLP body is acknowledged once it is DURABLE, not
 * once it is stored. An exporter gives up after 10 s, and a team store takes ~50 s to write a 30 MB
 * body; Langfuse v3 (events to blob storage, a worker ingests) and the OpenTelemetry Collector's
 * persistent queue answer the same way.
 *
 * - POST /v1/traces (transport/otlp.ts) has a body of at least `minSpans` spans or `minBytes`
 *   decompressed bytes checked in the body worker (parsed and normalized in full, nothing written: a bad
 *   body is still a 400, skipped spans still counted in `partial_success`), then `put` writes it here
 *   as received — a header line (content type and encoding, project, spans) and the raw bytes — in
 *   `<data folder>/spool/` (0600; write, fsync, rename, fsync of the folder), and the exporter gets 200.
 * - One drain loop per server imports the files oldest first through the same body pipeline as a
 *   synchronous post (its own BodyIngester, so checking new posts never waits behind a drain) and
 *   deletes a file only once the store has acknowledged its spans. At start the files left are
 *   drained again: a span imported twice replaces itself (no doubled spans or tokens).
 * - Bounded: past `maxBytes` of spooled bodies a post is a 503 with Retry-After (OTLP's retryable
 *   answer). A file the import refuses for what it holds (a 4xx: it cannot succeed later) moves to
 *   `spool/failed/` and is counted; a store failure keeps it and retries with a growing pause.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TraceStore } from '../../store/ports.js';
import type { EventBus } from '../events.js';
import { ServiceError, errorMessage, unavailable } from '../../../shared/errors.js';
import { BodyIngester } from './body-ingest.js';
import type { SpoolThreshold } from './body-worker.js';

export interface SpoolConfig {
  /** Bodies of at least this many spans are spooled (LOUPE_SPOOL_MIN_SPANS). */
  minSpans: number;
  /** ...or of at least this many bytes once decompressed (LOUPE_SPOOL_MIN_BYTES). */
  minBytes: number;
  /** Spooled bytes past which a post is refused with 503 + Retry-After (LOUPE_SPOOL_MAX_BYTES). */
  maxBytes: number;
  /** false: bodies are kept, not imported, until a start with draining on (LOUPE_SPOOL_DRAIN=0). */
  drain: boolean;
}

export const SPOOL_DEFAULTS: Readonly<SpoolConfig> = Object.freeze({ minSpans: 2048, minBytes: 4 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024, drain: true });

/** The configuration from LOUPE_SPOOL_* (numbers; LOUPE_SPOOL=off spools nothing), over the defaults. */
export function spoolConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SpoolConfig | null {
  if (/^(off|0|false|no)$/i.test(env.LOUPE_SPOOL ?? '')) return null;
  const num = (name: string, fallback: number) => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${text}: expected a number ≥ 0`);
    return n;
  };
  return {
    minSpans: num('LOUPE_SPOOL_MIN_SPANS', SPOOL_DEFAULTS.minSpans),
    minBytes: num('LOUPE_SPOOL_MIN_BYTES', SPOOL_DEFAULTS.minBytes),
    maxBytes: num('LOUPE_SPOOL_MAX_BYTES', SPOOL_DEFAULTS.maxBytes),
    drain: !/^(0|off|false|no)$/i.test(env.LOUPE_SPOOL_DRAIN ?? ''),
  };
}

/** What a spool file says about its body (its first line, JSON). */
export interface SpoolHeader {
  v: 1;
  received_at: string;
  content_type: string;
  content_encoding?: string;
  project_id?: string;
  /** Spans the check counted (those it would store). */
  spans: number;
}

interface Entry {
  name: string;
  /** File bytes (header + body). */
  bytes: number;
  spans: number;
  receivedMs: number;
}

/** GET /app/health `spooled` (contract system.ts SpoolView). */
export interface SpoolView {
  bodies: number;
  spans: number;
  bytes: number;
  oldest_age_s: number | null;
  /** Spans of the body being imported now (0 when none). */
  importing_spans: number;
  /** Bodies the import refused for what they hold, kept in spool/failed/. */
  failed: number;
  /** The last drain failure (kept until a body imports), else null. */
  last_error: string | null;
  /** Draining is off (LOUPE_SPOOL_DRAIN=0): bodies wait for a start with it on. */
  held: boolean;
}

const SUFFIX = '.otlp';
const TMP = '.tmp';
const RETRY_MS = { first: 1000, max: 30_000 };

export class Spool {
  readonly dir: string;
  private readonly entries: Entry[] = [];
  private bytes = 0;
  /** Bytes of bodies being written (counted against the cap). */
  private reserved = 0;
  private seq = 0;
  private importing: Entry | null = null;
  private failed = 0;
  private lastError: string | null = null;
  private loop: Promise<void> | null = null;
  private closed = false;
  private wake: (() => void) | null = null;
  private readonly idle = new Set<() => void>();
  private readonly ingester: BodyIngester;

  constructor(
    dataDir: string,
    private readonly store: TraceStore,
    readonly config: SpoolConfig,
    private readonly hooks: { events?: EventBus; afterImport?: () => Promise<unknown> } = {},
  ) {
    this.dir = path.join(dataDir, 'spool');
    this.ingester = new BodyIngester(store);
  }

  /** What the body worker is told (body-worker.ts): check, don't import, bodies this large. */
  get threshold(): SpoolThreshold {
    return { spans: this.config.minSpans, bytes: this.config.minBytes };
  }

  /** Reads what a previous run left (unfinished writes removed: never acknowledged) and starts draining it. */
  start(): this {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const name of fs.readdirSync(this.dir).sort()) {
      const file = path.join(this.dir, name);
      if (name.endsWith(TMP)) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      const header = readHeaderSync(file);
      if (!header) {
        this.moveToFailed(name, 'its header is unreadable');
        continue;
      }
      this.add({ name, bytes: fs.statSync(file).size, spans: header.spans, receivedMs: Date.parse(header.received_at) || Date.now() });
    }
    this.kick();
    return this;
  }

  status(): SpoolView {
    const oldest = this.entries[0];
    return {
      bodies: this.entries.length,
      spans: this.entries.reduce((n, e) => n + e.spans, 0),
      bytes: this.bytes,
      oldest_age_s: oldest ? Math.max(0, Math.round((Date.now() - oldest.receivedMs) / 100) / 10) : null,
      importing_spans: this.importing?.spans ?? 0,
      failed: this.failed,
      last_error: this.lastError,
      held: !this.config.drain,
    };
  }

  /** 503 + Retry-After when a body of `bytes` would take the spool past its cap (checked before and after the check). */
  admit(bytes: number): void {
    if (this.bytes + this.reserved + bytes <= this.config.maxBytes) return;
    const mib = (n: number) => `${Math.round(n / 1048576)} MiB`;
    throw unavailable(
      `The OTLP spool is full (${mib(this.bytes + this.reserved)} of ${mib(this.config.maxBytes)} waiting to be imported, ${this.entries.length} bodies): nothing of this body was kept. Retry later; GET /app/health shows the backlog (spooled).`,
      30,
    );
  }

  /** Writes a checked body durably; resolves once it is on disk (then the exporter may be answered). */
  async put(body: Buffer, meta: { contentType: string; contentEncoding?: string; projectId?: string }, spans: number): Promise<void> {
    if (this.closed) throw new ServiceError(503, 'The server is shutting down');
    const header: SpoolHeader = { v: 1, received_at: new Date().toISOString(), content_type: meta.contentType, spans };
    if (meta.contentEncoding) header.content_encoding = meta.contentEncoding;
    if (meta.projectId) header.project_id = meta.projectId;
    const head = Buffer.from(`${JSON.stringify(header)}\n`);
    const size = head.length + body.length;
    this.admit(size);
    this.reserved += size;
    // Names sort in arrival order: drained oldest first, also across restarts.
    const name = `${String(Date.now()).padStart(14, '0')}-${String(this.seq++).padStart(6, '0')}-${randomBytes(3).toString('hex')}${SUFFIX}`;
    const file = path.join(this.dir, name);
    const tmp = file + TMP;
    try {
      const fd = await fsp.open(tmp, 'wx', 0o600);
      try {
        await fd.writev([head, body]);
        await fd.sync();
      } finally {
        await fd.close();
      }
      await fsp.rename(tmp, file);
      await syncDir(this.dir);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw unavailable(`Could not keep the body in the OTLP spool (${errorMessage(e)}); nothing of it was kept. Retry later.`, 30);
    } finally {
      this.reserved -= size;
    }
    this.add({ name, bytes: size, spans, receivedMs: Date.parse(header.received_at) });
    this.kick();
  }

  /**
   * Resolves true once every spooled body is imported and the store has written what it owed
   * (ClickHouse summaries: ports.ts settled), false after `timeoutMs` with bodies still waiting.
   */
  async drained(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    if (this.entries.length) {
      const done = await new Promise<boolean>((resolve) => {
        const onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          this.idle.delete(onIdle);
          resolve(false);
        }, timeoutMs);
        this.idle.add(onIdle);
      });
      if (!done) return false;
    }
    const left = deadline - Date.now();
    if (!this.store.settled) return true;
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      this.store.settled().then(() => true, () => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(0, left)))),
    ]);
    clearTimeout(timer);
    return settled;
  }

  /** Stops draining (the body in work is cut; its file stays and is drained at the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.ingester.close();
    await this.loop;
  }

  private add(e: Entry): void {
    let i = this.entries.length;
    while (i > 0 && this.entries[i - 1]!.name > e.name) i--;
    this.entries.splice(i, 0, e);
    this.bytes += e.bytes;
    this.announce();
  }

  /** The status line's event (events.ts `spool.status`). */
  private announce(): void {
    const { bodies, spans, held } = this.status();
    this.hooks.events?.emit({ type: 'spool.status', bodies, spans, held });
  }

  private remove(e: Entry): void {
    const i = this.entries.indexOf(e);
    if (i >= 0) this.entries.splice(i, 1);
    this.bytes -= e.bytes;
    this.announce();
    if (this.entries.length) return;
    for (const f of [...this.idle]) {
      this.idle.delete(f);
      f();
    }
  }

  private kick(): void {
    if (this.loop || this.closed || !this.config.drain || !this.entries.length) return;
    this.loop = this.drain().finally(() => {
      this.loop = null;
      this.kick(); // a body spooled as the loop ended
    });
  }

  private async drain(): Promise<void> {
    let pause = RETRY_MS.first;
    while (!this.closed && this.entries.length) {
      const entry = this.entries[0]!;
      this.importing = entry;
      try {
        await this.importOne(entry);
        await fsp.rm(path.join(this.dir, entry.name), { force: true });
        this.lastError = null;
        pause = RETRY_MS.first;
        this.remove(entry);
      } catch (e) {
        if (this.closed) break;
        this.lastError = `${new Date().toISOString()} ${entry.name}: ${errorMessage(e)}`;
        if (permanent(e)) {
          this.moveToFailed(entry.name, errorMessage(e));
          this.remove(entry);
          continue;
        }
        // The store is away or refusing writes: the body waits, and is tried again.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pause);
          timer.unref();
          this.wake = () => (clearTimeout(timer), resolve());
        });
        this.wake = null;
        pause = Math.min(pause * 2, RETRY_MS.max);
      } finally {
        this.importing = null;
      }
    }
  }

  private async importOne(entry: Entry): Promise<void> {
    const data = await fsp.readFile(path.join(this.dir, entry.name));
    const cut = data.indexOf(0x0a);
    const header = cut > 0 ? parseHeader(data.subarray(0, cut).toString('utf8')) : null;
    if (!header) throw new ServiceError(400, 'spool file: its header is unreadable');
    // A copy that owns its memory, handed over to the worker (the file's buffer is not kept).
    const body = Buffer.from(data.subarray(cut + 1));
    await this.ingester.import(body, {
      contentType: header.content_type,
      contentEncoding: header.content_encoding,
      projectId: header.project_id,
      events: this.hooks.events,
      // Stored is acknowledged: a ClickHouse store's summaries follow from its journal (writer.ts).
      summaries: 'later',
    }, true);
    await this.hooks.afterImport?.();
  }

  private moveToFailed(name: string, why: string): void {
    const failedDir = path.join(this.dir, 'failed');
    fs.mkdirSync(failedDir, { recursive: true, mode: 0o700 });
    fs.renameSync(path.join(this.dir, name), path.join(failedDir, name));
    fs.writeFileSync(path.join(failedDir, `${name}.why.txt`), `${why}\n`, { mode: 0o600 });
    this.failed++;
  }
}

/** A refusal for what the body holds (it would fail again): 4xx other than 408/429. */
function permanent(e: unknown): boolean {
  return e instanceof ServiceError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
}

function parseHeader(line: string): SpoolHeader | null {
  try {
    const h = JSON.parse(line) as SpoolHeader;
    return h && h.v === 1 && typeof h.content_type === 'string' && Number.isFinite(h.spans) ? h : null;
  } catch {
    return null;
  }
}

function readHeaderSync(file: string): SpoolHeader | null {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const cut = buf.subarray(0, n).indexOf(0x0a);
    return cut > 0 ? parseHeader(buf.subarray(0, cut).toString('utf8')) : null;
  } finally {
    fs.closeSync(fd);
  }
}

/** fsync of a folder: the rename that made a file visible survives a power cut (no-op where unsupported). */
async function syncDir(dir: string): Promise<void> {
  let fd: fsp.FileHandle | undefined;
  try {
    fd = await fsp.open(dir, 'r');
    await fd.sync();
  } catch {
    // Windows cannot open a folder for fsync; its rename is durable on NTFS once the file is flushed.
  } finally {
    await fd?.close();
  }
}
