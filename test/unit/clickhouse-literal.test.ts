/**
 * The ClickHouse adapter's one literal formatter (store/clickhouse/sql.ts), fuzzed on a real server:
 * every generated value must come back from the server exactly as sent, and no value — however
 * hostile — may change the statement around it (a canary table must survive, row intact).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ClickHouse, parseStoreUrl } from '../../src/main/store/clickhouse/connection.js';
import { f64, i64, ident, join, literal, raw, render, sql, str, strs, type Sql } from '../../src/main/store/clickhouse/sql.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';

let ch: ClickHouse;

beforeAll(async () => {
  const { url } = await freshClickHouseStore('lit');
  ch = await ClickHouse.connect(parseStoreUrl(url));
  await ch.command(raw('CREATE TABLE canary (s String) ENGINE = MergeTree ORDER BY s'));
  await ch.command(sql`INSERT INTO canary VALUES (${str('alive')})`);
});
afterAll(() => ch?.close());

const rand = seededRandom(20261123);
const NASTY = [
  "'", "\\", "\\'", "''", "\\\\'", '"', '`', ';', '--', '/*', '*/', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f',
  '{p0:String}', '$1', '?', '%', '_', 'é', 'ä', '😀', '中', '\u2028', '\u00a0', ' ', 'x', 'SELECT', 'DROP TABLE canary',
];
const nastyString = () => Array.from({ length: Math.floor(rand() * 12) }, () => NASTY[Math.floor(rand() * NASTY.length)]).join('');

const ATTACKS = [
  "'; DROP TABLE canary; --",
  "\\'; DROP TABLE canary; --",
  "' OR '1'='1",
  "x' UNION ALL SELECT name FROM system.tables --",
  "\\\\'); DROP TABLE canary; --",
  "'\u0000'; DROP TABLE canary",
  "\n'; TRUNCATE TABLE canary; --",
];

async function roundTrip(values: Sql[]): Promise<unknown[]> {
  const rows = await ch.rows<{ v: unknown[] }>(sql`SELECT [${join(values, ', ')}] AS v`);
  return rows[0]!.v;
}

describe('ClickHouse literal formatter', () => {
  it('round-trips hostile strings exactly and leaves the statement intact', async () => {
    const values = [...ATTACKS, ...Array.from({ length: 400 }, nastyString)];
    for (let i = 0; i < values.length; i += 100) {
      const chunk = values.slice(i, i + 100);
      expect(await roundTrip(chunk.map((v) => sql`${str(v)}`))).toEqual(chunk);
    }
    // The same values in a WHERE clause: each matches nothing, the canary row is untouched.
    for (const v of ATTACKS) {
      const rows = await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM canary WHERE s = ${str(v)}`);
      expect(rows[0]!.n).toBe('0');
    }
    const all = await ch.rows<{ s: string }>(raw('SELECT s FROM canary'));
    expect(all).toEqual([{ s: 'alive' }]);
  });

  it('round-trips integers (int64 range, as bigint) and floats exactly', async () => {
    const ints: bigint[] = [0n, 1n, -1n, 9007199254740993n, -9223372036854775808n, 9223372036854775807n];
    for (let i = 0; i < 100; i++) ints.push(BigInt(Math.floor((rand() - 0.5) * 2 ** 53)) * BigInt(Math.floor(rand() * 1000)));
    const got = await roundTrip(ints.map((v) => sql`toInt64(${i64(v)})`));
    expect(got.map((x) => BigInt(x as string))).toEqual(ints);

    const floats = [0, -0.5, 1e-7, 1e21, -1e-300, 1.7976931348623157e308, 5e-324, -3.3e-320, 2.2250738585072014e-308, 0.1 + 0.2];
    for (let i = 0; i < 300; i++) floats.push((rand() - 0.5) * 10 ** Math.floor(rand() * 620 - 320));
    expect(await roundTrip(floats.map((v) => sql`${f64(v)}`))).toEqual(floats);
  });

  it('writes arrays, NULL and empty arrays with their types', async () => {
    const list = ATTACKS.slice(0, 3);
    const rows = await ch.rows<Record<string, unknown>>(
      sql`SELECT ${strs(list)} AS a, ${strs([])} AS e, toTypeName(${strs([])}) AS t, ${str(null)} AS n, has(${strs(list)}, ${str(ATTACKS[0]!)}) AS h`,
    );
    expect(rows[0]).toEqual({ a: list, e: [], t: 'Array(String)', n: null, h: 1 });
  });

  it('refuses values it cannot write exactly, and anything but identifiers as identifiers', () => {
    expect(() => literal(f64(Number.NaN))).toThrow(/finite/);
    expect(() => literal(i64(1.5))).toThrow(/integer/);
    expect(() => literal({ type: 'String', value: 5 })).toThrow(/string/);
    expect(() => ident('a; DROP TABLE x')).toThrow(/not an identifier/);
    expect(() => ident("s' OR 1")).toThrow(/not an identifier/);
    expect(ident('spans.trace_id').parts).toEqual(['spans.trace_id']);
    // The tag takes fragments and parameters only: a bare string is a programming error, not SQL.
    expect(() => sql`SELECT ${'x' as unknown as Sql}`).toThrow(/neither/);
  });

  it('in server mode sends values as typed parameters, never in the text', () => {
    const q = sql`SELECT * FROM spans WHERE project_id = ${str("a'b")} AND n > ${i64(5n)} AND has(${strs(['x'])}, k) AND z = ${str(null)}`;
    const r = render(q, 'server');
    expect(r.query).toBe('SELECT * FROM spans WHERE project_id = {p0:String} AND n > {p1:Int64} AND has({p2:Array(String)}, k) AND z = {p3:Nullable(String)}');
    expect(r.query_params).toEqual({ p0: "a'b", p1: '5', p2: ['x'], p3: null });
    expect(render(q, 'literal').query).toBe("SELECT * FROM spans WHERE project_id = 'a\\'b' AND n > 5 AND has(['x'], k) AND z = NULL");
  });

  it('is the only way values become SQL text: no statement of the adapter is assembled by hand', () => {
    const root = path.resolve(import.meta.dirname, '../../src/main/store/clickhouse');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      const at = (i: number) => `${f}:${text.slice(0, i).split('\n').length}`;
      // raw() is fixed text: no `${…}` holes (computed identifiers go through ident(), values through parameters).
      for (const m of text.matchAll(/\braw\(\s*`[^`]*\$\{/g)) problems.push(`${at(m.index)}: raw() with an interpolation`);
      // Text handed to the client is what render() produced, never a template of its own.
      for (const m of text.matchAll(/\bquery:\s*`/g)) problems.push(`${at(m.index)}: a query text built by a template`);
      if (f !== 'sql.ts') for (const m of text.matchAll(/new Sql\(/g)) problems.push(`${at(m.index)}: Sql built outside sql.ts`);
      if (f !== 'sql.ts' && f !== 'migrate.ts') for (const m of text.matchAll(/\bddl\(/g)) problems.push(`${at(m.index)}: ddl() outside the migrator`);
    }
    expect(problems).toEqual([]);
    // And raw() does not compile with text computed at run time (checked by tsc over the tests).
    const computed: string = ['SELECT', '1'].join(' ');
    // @ts-expect-error a run-time string is not fixed SQL text
    expect(raw(computed).parts).toEqual(['SELECT 1']);
  });
});
