/**
 * The floor of the ingest benchmark: the least any importer of this file must do. It reads the same
 * JSONL in the same chunks, JSON.parses each line and inserts every span with a bare prepared
 * INSERT of the same columns (spans + span_bodies, the body uncompressed; same indexes, batched transactions), taking
 * values straight from the attributes: no mapping table, no message normalization, no costs, no
 * upsert, no summaries. `import spans/s ÷ floor spans/s` says what Loupe's own work costs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import Database from 'better-sqlite3';
import { JSON_COLUMNS, SCALAR_COLUMNS } from '../../src/main/store/sqlite/ingest.js';
import { openDatabase } from '../../src/main/store/sqlite/open.js';

type J = Record<string, any>;

const value = (v: J | undefined): unknown => (v ? (v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? null) : null);

export async function floorImport(file: string, dbFile: string): Promise<number> {
  fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
  openDatabase(dbFile).close(); // same schema and indexes as the real store
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const cols = [...SCALAR_COLUMNS, ...JSON_COLUMNS, 'custom_attrs_int', 'ingested_at_ms'];
  const ins = db.prepare(`INSERT INTO spans (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`);
  // The body as received, uncompressed (dictionary 0 would mean zstd: nothing reads the floor's store).
  const insD = db.prepare(`INSERT INTO span_bodies (span_rowid, resource_id, dict_id, body) VALUES (?, 0, 0, ?)`);
  const args: unknown[] = new Array(cols.length).fill(null);
  const idx = (c: string): number => cols.indexOf(c);
  const at = {
    operation_name: idx('operation_name'), provider_name: idx('provider_name'), agent_name: idx('agent_name'),
    conversation_id: idx('conversation_id'), request_model: idx('request_model'), response_model: idx('response_model'),
    input_tokens: idx('input_tokens'), output_tokens: idx('output_tokens'),
  };
  let batch: J[] = [];
  let n = 0;
  const write = db.transaction((spans: J[]) => {
    for (const s of spans) {
      const a: J = {};
      for (const kv of s.attributes ?? []) a[kv.key] = value(kv.value);
      args.fill(null);
      args[0] = 'bench/genai';
      args[1] = s.traceId;
      args[2] = s.spanId;
      args[3] = s.parentSpanId ?? null;
      args[4] = s.name;
      args[5] = 'INTERNAL';
      args[6] = BigInt(s.startTimeUnixNano);
      args[7] = BigInt(s.endTimeUnixNano);
      args[8] = 'UNSET';
      args[at.operation_name] = a['gen_ai.operation.name'] ?? null;
      args[at.provider_name] = a['gen_ai.provider.name'] ?? null;
      args[at.agent_name] = a['gen_ai.agent.name'] ?? null;
      args[at.conversation_id] = a['gen_ai.conversation.id'] ?? null;
      args[at.request_model] = a['gen_ai.request.model'] ?? null;
      args[at.response_model] = a['gen_ai.response.model'] ?? null;
      args[at.input_tokens] = a['gen_ai.usage.input_tokens'] ?? null;
      args[at.output_tokens] = a['gen_ai.usage.output_tokens'] ?? null;
      for (let i = SCALAR_COLUMNS.length; i < cols.length - 1; i++) args[i] = '{}';
      args[cols.length - 1] = Date.now();
      const r = ins.run(args);
      insD.run(r.lastInsertRowid, Buffer.from(JSON.stringify(s)));
    }
  });
  const decoder = new StringDecoder('utf8');
  let carry = '';
  const line = (l: string) => {
    if (!l) return;
    const req = JSON.parse(l) as J;
    for (const rs of req.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) batch.push(s);
    if (batch.length >= 4096) {
      write(batch);
      n += batch.length;
      batch = [];
    }
  };
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const s = carry + decoder.write(chunk as Buffer);
    let start = 0;
    let nl: number;
    while ((nl = s.indexOf('\n', start)) !== -1) {
      line(s.slice(start, nl));
      start = nl + 1;
    }
    carry = s.slice(start);
  }
  line(carry + decoder.end());
  write(batch);
  n += batch.length;
  db.close();
  return n;
}
