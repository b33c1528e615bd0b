/**
 * One connection to a ClickHouse server through the official client (@clickhouse/client, HTTP).
 * Kept within what ClickHouse 18.16 (Debian's package) understands as well as current servers:
 *
 *  - no client-side settings the old server lacks (response compression stays off: it would add
 *    enable_http_compression, harmless but pointless on a LAN; the JSON formats used are the ones
 *    18.16 has: JSONEachRow in and out, never JSONCompactEachRow);
 *  - values as server-side query parameters when the server has them, else literals (sql.ts);
 *  - 64-bit integers come back quoted (the server's default), so nanosecond times stay exact.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { StoreAbortedError, StoreUnavailableError } from '../ports.js';
import { ident, join, render, sql, str, type ParamMode, type Sql } from './sql.js';
import type { BinaryRows } from './row-binary.js';
import { DB_NAME, type ClickHouseConfig } from './url.js';

export { parseStoreUrl, redactStoreUrl, type ClickHouseConfig } from './url.js';

export interface ServerInfo {
  version: string;
  /** [major, minor] of the server version (18.16 → [18, 16]). */
  major: number;
  minor: number;
  paramMode: ParamMode;
}

const versionRow = z.object({ v: z.string() });

/** Settings sent with every query: big literal IN-lists on 18.16 need more than the 256 KiB default. */
const QUERY_SETTINGS = { max_query_size: '67108864' } as const;

export class ClickHouse {
  private constructor(
    private readonly client: ClickHouseClient,
    readonly config: ClickHouseConfig,
    readonly server: ServerInfo,
  ) {}

  /** Connects (creating the database when missing) and detects what the server supports. */
  static async connect(config: ClickHouseConfig, opts: { createDatabase?: boolean } = {}): Promise<ClickHouse> {
    if (!DB_NAME.test(config.database)) throw new Error(`ClickHouse database name ${JSON.stringify(config.database)} must be letters, digits and _`);
    const base = {
      url: config.url,
      username: config.username,
      password: config.password,
      application: 'loupe',
      request_timeout: 300_000,
      max_open_connections: 16,
      log: { level: ClickHouseLogLevel.OFF },
      // Servers close idle keep-alive sockets after keep_alive_timeout (3 s by default); a socket idle
      // for 1 s is dropped by the client first, and a stale one found after an event-loop stall too.
      keep_alive: { enabled: true, idle_socket_ttl: 1000, eagerly_destroy_stale_sockets: true },
    };
    if (opts.createDatabase !== false) {
      const admin = createClient({ ...base, database: 'default' });
      try {
        await admin.command({ query: render(sql`CREATE DATABASE IF NOT EXISTS ${ident(config.database)}`, 'literal').query });
      } catch (e) {
        throw new Error(`ClickHouse at ${config.url}: ${describe(e)}`, { cause: e });
      } finally {
        await admin.close();
      }
    }
    const client = createClient({ ...base, database: config.database, clickhouse_settings: QUERY_SETTINGS });
    const rows = await (await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json();
    const v = versionRow.parse(rows[0]).v;
    const [major = 0, minor = 0] = v.split('.').map(Number);
    const paramMode = await detectParams(client);
    return new ClickHouse(client, config, { version: v, major, minor, paramMode });
  }

  /** Rows of a SELECT as objects (JSONEachRow; 64-bit integers arrive as strings). */
  async rows<T = Record<string, unknown>>(q: Sql, opts: { signal?: AbortSignal } = {}): Promise<T[]> {
    const r = render(q, this.server.paramMode);
    return this.cancellable(r.query, opts.signal, async (query_id) => {
      const rs = await this.client.query({ query: r.query, query_params: r.query_params, format: 'JSONEachRow', abort_signal: opts.signal, query_id });
      return await rs.json<T>();
    });
  }

  /**
   * Rows of an ORDER BY … LIMIT query and the number of rows it would have without the LIMIT: the
   * server counts them while sorting (JSON format's rows_before_limit_at_least, exact when the query
   * sorts), which saves a second COUNT pass over the same data.
   */
  async page<T = Record<string, unknown>>(q: Sql, opts: { signal?: AbortSignal } = {}): Promise<{ rows: T[]; total: number }> {
    const r = render(q, this.server.paramMode);
    const run = (query: string) =>
      this.cancellable(query, opts.signal, async (query_id) => {
        const rs = await this.client.query({ query, query_params: r.query_params, format: 'JSON', abort_signal: opts.signal, query_id });
        const body = (await rs.json()) as { data: T[]; rows_before_limit_at_least?: number | string };
        return { rows: body.data, total: Number(body.rows_before_limit_at_least ?? body.data.length) };
      });
    // `LIMIT n, 0` (a client asking for the count only) reads nothing, so the server counts nothing:
    // ask for one row instead and drop it.
    const countOnly = / LIMIT (\d+), 0(?=\D|$)/;
    if (countOnly.test(r.query)) return { rows: [], total: (await run(r.query.replace(countOnly, ' LIMIT $1, 1'))).total };
    return run(r.query);
  }

  /** A statement without a result (DDL, ALTER, OPTIMIZE, INSERT … SELECT). */
  async command(q: Sql, settings: Record<string, string | number> = {}): Promise<void> {
    const r = render(q, this.server.paramMode);
    await retried(r.query, () => this.client.command({ query: r.query, query_params: r.query_params, clickhouse_settings: settings }));
  }

  /**
   * Inserts rows already encoded as JSONEachRow text (one object per line). The adapter encodes rows
   * itself: bigint nanoseconds and int64 attributes are written as exact digits, which JSON.stringify cannot do.
   */
  async insertJsonEachRow(table: string, body: string): Promise<void> {
    if (!DB_NAME.test(table)) throw new TypeError(`not a table name: ${table}`);
    if (!body) return;
    const query = render(sql`INSERT INTO ${ident(table)} FORMAT JSONEachRow`, 'literal').query;
    await this.insert(query, () => [Buffer.from(body)]);
  }

  /**
   * Inserts rows already encoded as RowBinary (row-binary.ts) for `columns`, in that order, streamed
   * to the server in slices of about 1 MiB of the rows' own buffers (nothing is copied or joined).
   */
  async insertRowBinary(table: string, columns: readonly string[], parts: readonly BinaryRows[]): Promise<void> {
    if (!DB_NAME.test(table)) throw new TypeError(`not a table name: ${table}`);
    if (!parts.some((p) => p.data.byteLength)) return;
    const query = render(sql`INSERT INTO ${ident(table)} (${join(columns.map((c) => ident(c)), ', ')}) FORMAT RowBinary`, 'literal').query;
    function* chunks(): Generator<Buffer> {
      for (const p of parts) {
        for (let at = 0; at < p.data.byteLength; at += 1 << 20) {
          yield Buffer.from(p.data.buffer, p.data.byteOffset + at, Math.min(1 << 20, p.data.byteLength - at));
        }
      }
    }
    await this.insert(query, chunks);
  }

  /** Sends an INSERT's data (`values` is called again for a retry on a broken socket). */
  private async insert(query: string, values: () => Iterable<Buffer>): Promise<void> {
    await retried(query, async () => {
      const res = await this.client.exec({ query, values: Readable.from(values()) });
      for await (const _ of res.stream) {
        // drain: the server answers an empty body
      }
    });
  }

  /**
   * Runs a read under its own query id so that a signal stops it on the server too. Aborting the HTTP
   * request alone rejects at once here, but 18.16 keeps computing a query whose client has gone until
   * it writes its first output (`cancel_http_readonly_queries_on_client_close` is newer), so the
   * abort also sends `KILL QUERY … ASYNC` for that id. A signal that has already fired reads nothing.
   */
  private async cancellable<T>(query: string, signal: AbortSignal | undefined, run: (queryId: string) => Promise<T>): Promise<T> {
    if (signal?.aborted) throw new StoreAbortedError();
    // A new id per attempt: a retried request must not collide with its first attempt still running.
    let queryId = '';
    const attempt = () => run((queryId = randomUUID()));
    if (!signal) return retried(query, attempt);
    const kill = () => void this.kill(queryId);
    signal.addEventListener('abort', kill, { once: true });
    try {
      return await retried(query, attempt);
    } finally {
      signal.removeEventListener('abort', kill);
    }
  }

  /** Stops a running query by id (best effort: it may have finished meanwhile). */
  private async kill(queryId: string): Promise<void> {
    // Literal on every server: KILL's WHERE is evaluated against system.processes, not bound.
    const r = render(sql`KILL QUERY WHERE query_id = ${str(queryId)} ASYNC`, 'literal');
    await this.client.command({ query: r.query }).catch(() => {});
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Query parameters exist from ClickHouse 19.x on; asking the server beats parsing version numbers. */
async function detectParams(client: ClickHouseClient): Promise<ParamMode> {
  if (process.env.LOUPE_CLICKHOUSE_PARAMS === 'literal') return 'literal';
  try {
    const rs = await client.query({ query: 'SELECT {probe:UInt8} AS x', query_params: { probe: 1 }, format: 'JSONEachRow' });
    const rows = await rs.json<{ x: number }>();
    return rows[0]?.x === 1 ? 'server' : 'literal';
  } catch {
    return 'literal';
  }
}

function describe(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  // 18.16 messages: "Code: 62, e.displayText() = DB::Exception: …, e.what() = DB::Exception"
  return msg.replace(/, e\.what\(\) = DB::Exception\s*$/, '').replace('e.displayText() = ', '').trim();
}

export class ClickHouseError extends Error {
  constructor(
    message: string,
    readonly query: string,
  ) {
    super(message);
  }
}

/**
 * Runs a request, once more if the connection broke under it (a keep-alive socket the server had just
 * closed). Safe for every request of this adapter: reads have no effect, and writes are idempotent —
 * rows are versioned and ReplacingMergeTree keeps one per key, DDL says IF NOT EXISTS.
 */
async function retried<T>(query: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isBrokenSocket(e)) throw wrap(e, query);
    try {
      return await run();
    } catch (again) {
      throw wrap(again, query);
    }
  }
}

const isBrokenSocket = (e: unknown): boolean =>
  (e as { code?: unknown } | null)?.code === 'ECONNRESET' || (e instanceof Error && /socket hang up|ECONNRESET|EPIPE/i.test(e.message));

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

function wrap(e: unknown, query: string): Error {
  if (e instanceof Error && (e.name === 'AbortError' || /aborted/i.test(e.message))) return new StoreAbortedError();
  const code = (e as { code?: unknown } | null)?.code;
  if ((typeof code === 'string' && UNREACHABLE.has(code)) || (e instanceof Error && /timeout|socket hang up/i.test(e.message))) {
    return new StoreUnavailableError(`ClickHouse does not answer: ${describe(e)}`);
  }
  const head = query.replace(/\s+/g, ' ').slice(0, 160);
  return new ClickHouseError(`ClickHouse: ${describe(e)} (in: ${head}${query.length > 160 ? '…' : ''})`, query);
}

/** `sql` re-exported so callers need one import for building and running statements. */
export { sql };
