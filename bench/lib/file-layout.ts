/**
 * Where a store's bytes go: every table and index with its share of the file, from SQLite's dbstat
 * virtual table (pages owned, payload, unused bytes), per span. The scale bench prints it after the
 * import; `tsx bench/lib/file-layout.ts <loupe.db> [spans]` prints it for any store file.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export interface LayoutRow {
  name: string;
  /** Bytes of the pages it owns, per span. */
  perSpan: number;
  /** Of which unused (free space inside its pages), per span. */
  unusedPerSpan: number;
}

/** Tables and indexes by bytes per span, largest first; those under 1 B/span summed as "(others)". */
export function fileLayout(dbFile: string, spans?: number): { spans: number; perSpan: number; rows: LayoutRow[] } {
  const db = new Database(dbFile, { readonly: true });
  try {
    const n = spans ?? (db.prepare('SELECT COUNT(*) FROM spans').pluck().get() as number);
    const pages = db.pragma('page_count', { simple: true }) as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    const all = db.prepare('SELECT name, SUM(pgsize) AS bytes, SUM(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as {
      name: string; bytes: number; unused: number;
    }[];
    const rows: LayoutRow[] = [];
    const others: LayoutRow = { name: '(others)', perSpan: 0, unusedPerSpan: 0 };
    for (const r of all) {
      const row = { name: r.name, perSpan: r.bytes / n, unusedPerSpan: r.unused / n };
      if (row.perSpan >= 1) rows.push(row);
      else {
        others.perSpan += row.perSpan;
        others.unusedPerSpan += row.unusedPerSpan;
      }
    }
    const free = (db.pragma('freelist_count', { simple: true }) as number) * size;
    if (others.perSpan) rows.push(others);
    if (free) rows.push({ name: '(free pages)', perSpan: free / n, unusedPerSpan: free / n });
    return { spans: n, perSpan: (pages * size) / n, rows };
  } finally {
    db.close();
  }
}

/** The layout as `print` lines: one per table or index. */
export function printLayout(dbFile: string, print: (name: string, value: string | number) => void, spans?: number): void {
  const l = fileLayout(dbFile, spans);
  print('file layout: bytes per span (pages in the main file)', l.perSpan.toFixed(0));
  for (const r of l.rows) print(`file layout: ${r.name} (B/span, of which unused)`, `${r.perSpan.toFixed(1)} (${r.unusedPerSpan.toFixed(1)})`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [file, spans] = process.argv.slice(2);
  printLayout(file!, (name, value) => console.log(`${name.padEnd(60)} ${value}`), spans ? Number(spans) : undefined);
}
