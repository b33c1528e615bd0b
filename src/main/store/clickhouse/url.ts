/**
 * Store URLs of the ClickHouse adapter, apart from the client so the store factory can check one
 * without loading @clickhouse/client (the ingest worker imports the factory).
 */

export interface ClickHouseConfig {
  /** http(s)://host:port of the HTTP interface. */
  url: string;
  username: string;
  password: string;
  database: string;
}

/** clickhouse:// or clickhouses:// (TLS). */
export const isClickHouseUrl = (s: string): boolean => /^clickhouses?:\/\//i.test(s);

export const DB_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `clickhouse://user:pass@host:8123/db` (or `clickhouses://` for HTTPS) → connection settings.
 * User defaults to `default`, port to 8123 (8443 with TLS), database to `loupe`. Credentials may be
 * percent-encoded. Throws an Error naming what is wrong.
 */
export function parseStoreUrl(text: string): ClickHouseConfig {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`store URL ${JSON.stringify(redactStoreUrl(text))} is not a URL; expected clickhouse://user:password@host:8123/database`);
  }
  const tls = u.protocol === 'clickhouses:' || u.protocol === 'https:';
  if (!['clickhouse:', 'clickhouses:', 'http:', 'https:'].includes(u.protocol)) {
    throw new Error(`store URL scheme ${u.protocol} is not supported; expected clickhouse:// (or clickhouses:// for TLS)`);
  }
  if (!u.hostname) throw new Error('store URL has no host; expected clickhouse://user:password@host:8123/database');
  const path = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, ''));
  const database = path || 'loupe';
  if (!DB_NAME.test(database)) throw new Error(`store URL database ${JSON.stringify(database)} must be a plain name (letters, digits, _)`);
  const port = u.port || (tls ? '8443' : '8123');
  return {
    url: `${tls ? 'https' : 'http'}://${u.hostname}:${port}`,
    username: decodeURIComponent(u.username) || 'default',
    password: decodeURIComponent(u.password),
    database,
  };
}

/** The store URL without its password (for logs, Settings and errors). */
export function redactStoreUrl(text: string): string {
  try {
    const u = new URL(text);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a URL: still hide whatever sits between a ':' and the '@' of the credentials.
    return text.replace(/:[^:@/]*@/, ':***@');
  }
}
