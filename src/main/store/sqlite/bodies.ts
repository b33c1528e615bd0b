/**
 * Compressed span bodies on SQLite (migration 0011, codec in body-codec.ts): the SQL function every
 * connection reads them through, what the writer stores with each batch, and the one-time
 * compression of a store's older rows.
 *
 * Readers never see the compression: `span_details` is a view whose columns call
 * `loupe_body(dict_id, body, field)` (and, for the raw span, `loupe_raw_span` with the span row's ids
 * and times, migration 0014), so every query written against the old table keeps working.
 * The function decompresses a body once for all the fields a row asks for (the last body is kept).
 * A SQL function cannot query its own connection, so a dictionary it has not met yet is read
 * through a short-lived read-only connection to the same file; the writer's connection is told of
 * the dictionaries it stores (rememberDictionary) because its own transaction may not be committed.
 *
 * A body whose row has an `input_base` (migration 0021) holds only the input messages after its base
 * span's: the view walks the bases in SQL (a recursive CTE, so no function queries the connection)
 * and `loupe_input_chain` joins their texts; `loupe_splice` re-encodes a body with its base's messages
 * in front, for the delete trigger and the writer's hand-over that keep continuations whole when a
 * base is deleted or replaced.
 */
import Database from 'better-sqlite3';
import { BIG_DICTIONARY_BYTES, BODY_FIELDS, BodyDecoder, BodyEncoder, buildDictionary, packBody, type BodyField, type SpanBody } from './body-codec.js';
import { restoreMessageAttributes, restoreSpanKeys, stripMessageAttributes, stripSpanKeys, type SpanKeys } from '../../domain/raw-span.js';
import type { SpanMessage } from '../../domain/span.js';
import { joinJsonArrays } from '../../domain/messages-attribute.js';
import { textOf } from '../../../shared/text.js';

type Db = Database.Database;

/** Bodies a writing thread compresses without a dictionary before it makes one from them. */
export const DICTIONARY_SAMPLES = 256;
/**
 * Bodies after which a writing thread makes its big dictionary (BIG_DICTIONARY_BYTES) from the same
 * samples: 128 KiB saves ~15 bytes a body on the history workload, so it pays for itself over ~9k
 * bodies; a thread that writes fewer keeps only the 32 KiB one.
 */
export const BIG_DICTIONARY_AT = 4096;

interface ConnectionBodies {
  decoder: BodyDecoder;
  known: Map<number, Buffer>;
  last: { dict: number; blob: Buffer; body: SpanBody } | null;
  /** Drops every codec and dictionary kept by id (forgetDictionaries). */
  forget: () => void;
}

const connections = new WeakMap<Db, ConnectionBodies>();

/** Input texts of bases kept per connection (a conversation's calls share their bases). */
const MAX_KEPT_INPUTS = 4096;

/** Registers the body functions on a connection (openDatabase does, for every connection). */
export function registerBodyFunctions(db: Db, file: string, nativeBinding?: string): void {
  const known = new Map<number, Buffer>();
  const load = (id: number): Buffer | null => {
    const mine = known.get(id);
    if (mine) return mine;
    if (file === ':memory:') return null;
    const side = new Database(file, { readonly: true, fileMustExist: true, nativeBinding });
    try {
      const bytes = side.prepare('SELECT bytes FROM dictionaries WHERE id = ?').pluck().get(id) as Buffer | undefined;
      if (bytes) known.set(id, bytes);
      return bytes ?? null;
    } finally {
      side.close();
    }
  };
  const encoders = new Map<number, BodyEncoder>();
  const state: ConnectionBodies = {
    decoder: new BodyDecoder(load), known, last: null,
    forget: () => {
      known.clear();
      encoders.clear();
      state.decoder = new BodyDecoder(load);
      state.last = null;
    },
  };
  connections.set(db, state);
  const decode = (dict: unknown, blob: Buffer): SpanBody => {
    const id = Number(dict);
    if (state.last && state.last.dict === id && state.last.blob.equals(blob)) return state.last.body;
    const body = state.decoder.decode(id, blob);
    state.last = { dict: id, blob, body };
    return body;
  };
  // `input`: the whole input of a continued one (loupe_input_chain), else the body's own.
  const rawSpan = (body: SpanBody, input?: string | null) =>
    body.raw_span == null ? null : restoreMessageAttributes(body.raw_span, input == null ? body : { input_messages: input, output_messages: body.output_messages });
  // The input_messages field of a body by its span row id, while its blob is the same.
  const inputs = new Map<number, { blob: Buffer; text: string }>();
  const inputOf = (rowid: number, dict: unknown, blob: Buffer): string => {
    const kept = inputs.get(rowid);
    if (kept && kept.blob.equals(blob)) return kept.text;
    const text = decode(dict, blob).input_messages ?? '[]';
    if (inputs.size >= MAX_KEPT_INPUTS) inputs.delete(inputs.keys().next().value!);
    inputs.set(rowid, { blob: Buffer.from(blob), text });
    return text;
  };
  type Chain = [number, string][];
  // better-sqlite3's typings give step one argument; it passes every SQL argument.
  const chainStep = ((acc: Chain, depth: unknown, rowid: unknown, dict: unknown, blob: unknown) => {
    if (Buffer.isBuffer(blob)) acc.push([Number(depth), inputOf(Number(rowid), dict, blob)]);
  }) as unknown as (acc: Chain, next: unknown) => void;
  db.aggregate('loupe_input_chain', {
    start: () => [] as Chain,
    step: chainStep,
    result: (acc: Chain) => joinJsonArrays(acc.sort((a, b) => b[0] - a[0]).map((x) => x[1])),
  });
  // A body with its base's input messages in front of its own (compressed with its own dictionary).
  db.function('loupe_splice', (baseDict: unknown, baseBlob: unknown, dict: unknown, blob: unknown) => {
    if (!Buffer.isBuffer(blob) || !Buffer.isBuffer(baseBlob)) return blob;
    const head = state.decoder.decode(Number(baseDict), baseBlob).input_messages ?? '[]';
    const body = state.decoder.decode(Number(dict), blob);
    const id = Number(dict);
    let enc = encoders.get(id);
    if (!enc) {
      const bytes = id === 0 ? null : load(id);
      if (id !== 0 && !bytes) throw new Error(`span body compressed with dictionary ${id}, which the store does not hold`);
      encoders.set(id, (enc = new BodyEncoder(bytes)));
    }
    return enc.encode({ ...body, input_messages: joinJsonArrays([head, body.input_messages ?? '[]']) });
  });
  db.function('loupe_body', { deterministic: true }, (dict: unknown, blob: unknown, field: unknown) => {
    if (!Buffer.isBuffer(blob)) return null;
    const body = decode(dict, blob);
    if (field === 'raw_span_dump') return rawSpan(body);
    return body[field as BodyField] ?? null;
  });
  // The raw span with the keys its row holds put back (start and end as decimal text).
  db.function('loupe_raw_span', { deterministic: true, varargs: true }, (dict: unknown, blob: unknown, traceId: unknown, spanId: unknown, parentSpanId: unknown, startNs: unknown, endNs: unknown, input?: unknown) => {
    if (!Buffer.isBuffer(blob)) return null;
    const raw = rawSpan(decode(dict, blob), typeof input === 'string' ? input : null);
    if (raw == null) return null;
    const text = (v: unknown) => (v == null ? null : textOf(v));
    return restoreSpanKeys(raw, { trace_id: String(traceId), span_id: String(spanId), parent_span_id: text(parentSpanId), start_ns: text(startNs), end_ns: text(endNs) });
  });
}

/**
 * Some fields of stored bodies decoded in JS on a connection's own decoder (dictionaries it knows, or
 * reads), for a read that selects `dict_id, body` itself: one blob per row handed over, no SQL
 * function call per field, and the fields it does not ask for never made into strings.
 */
export function bodyFields(db: Db): (dict: number, blob: Buffer, only: ReadonlySet<BodyField>) => Partial<SpanBody> {
  const state = connections.get(db);
  if (!state) throw new Error('bodyFields: the connection has no body functions (openDatabase / openReadConnection register them)');
  return (dict, blob, only) => state.decoder.decodeFields(dict, blob, only);
}

/**
 * Makes a connection forget the dictionaries, decoders and encoders it keeps by dictionary id: its
 * transaction rolled back, so a dictionary it stored is gone and the next one stored may take its id —
 * a codec kept for the old one would then read (or splice into) the new one's bodies with the wrong bytes.
 */
export function forgetDictionaries(db: Db): void {
  connections.get(db)?.forget();
}

/** Tells a connection about a dictionary it stored (its transaction may not be visible elsewhere yet). */
export function rememberDictionary(db: Db, id: number, bytes: Buffer): void {
  connections.get(db)?.known.set(id, bytes);
}

// ---------------------------------------------------------------- writing threads: compressing

/** The heavy fields of a span as the ingest writer hands them over, before compression. */
export type BodySource = Omit<SpanBody, 'raw_span'> & {
  raw_span_dump: string;
  input_parsed: readonly SpanMessage[];
  output_parsed: readonly SpanMessage[];
  /** The keys the span's row stores: left out of the raw span where it prints them the same. */
  keys?: SpanKeys;
  /** `raw_span_dump` is already in its stored form (SpanRecord.raw_span_stripped): written as it is. */
  stripped?: boolean;
};

/** A compressed body with the dictionary it needs (bytes included, so the writer can store it). */
export interface EncodedBody {
  blob: Buffer;
  dict_hash: string | null;
  dict: Buffer | null;
}

/**
 * Compresses the bodies one thread writes. Its first DICTIONARY_SAMPLES bodies go without a
 * dictionary and become the raw content of the one used from then on (32 KiB, then 128 KiB past
 * BIG_DICTIONARY_AT bodies) — so each ingest worker makes its dictionaries from the store's own
 * spans, at no cost to the writer.
 */
export class ThreadBodyEncoder {
  private encoder = new BodyEncoder(null);
  private samples: Buffer[] | null = [];
  private written = 0;
  encode(src: BodySource): EncodedBody {
    const body: SpanBody = {
      system_instructions: src.system_instructions, tool_definitions: src.tool_definitions, tool_call_arguments: src.tool_call_arguments,
      tool_call_result: src.tool_call_result, input_messages: src.input_messages, output_messages: src.output_messages,
      events: src.events, links: src.links,
      raw_span: src.stripped
        ? src.raw_span_dump
        : stripMessageAttributes(src.keys ? stripSpanKeys(src.raw_span_dump, src.keys) : src.raw_span_dump, {
            input_messages: src.input_parsed, output_messages: src.output_parsed,
          }),
    };
    const out: EncodedBody = { blob: this.encoder.encode(body), dict_hash: this.encoder.hash, dict: this.encoder.dictionary };
    this.written++;
    if (this.samples && this.samples.length < DICTIONARY_SAMPLES) {
      this.samples.push(packBody(body));
      if (this.samples.length >= DICTIONARY_SAMPLES) {
        const dict = buildDictionary(this.samples);
        if (dict) this.encoder = new BodyEncoder(dict);
        else this.samples = null;
      }
    } else if (this.samples && this.written >= BIG_DICTIONARY_AT) {
      const dict = buildDictionary(this.samples, BIG_DICTIONARY_BYTES);
      this.samples = null;
      // Samples under 32 KiB in all make the same dictionary again: nothing to change.
      if (dict && dict.length > this.encoder.dictionary!.length) this.encoder = new BodyEncoder(dict);
    }
    return out;
  }
}

// ---------------------------------------------------------------- the writer: storing

export const BODY_SQL = {
  dictByHash: `SELECT id FROM dictionaries WHERE hash = ?`,
  addDict: `INSERT INTO dictionaries (hash, bytes) VALUES (?, ?)`,
  resourceId: `SELECT id FROM resources WHERE attributes = ?`,
  addResource: `INSERT INTO resources (attributes) VALUES (?)`,
  insert: `INSERT INTO span_bodies (span_rowid, resource_id, dict_id, body, input_base) VALUES (?, ?, ?, ?, ?)`,
  upsert: `INSERT INTO span_bodies (span_rowid, resource_id, dict_id, body, input_base) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (span_rowid) DO UPDATE SET resource_id = excluded.resource_id, dict_id = excluded.dict_id, body = excluded.body,
    input_base = excluded.input_base`,
  // Before a span's body is replaced: the spans that continue its input get its messages in front of
  // theirs and continue its base instead (what the delete trigger of migration 0021 does).
  handOver: `UPDATE span_bodies SET body = loupe_splice(b.dict_id, b.body, span_bodies.dict_id, span_bodies.body), input_base = b.input_base
    FROM (SELECT span_rowid, dict_id, body, input_base FROM span_bodies WHERE span_rowid = ?) AS b
    WHERE span_bodies.input_base = b.span_rowid`,
} as const;

export interface BodyWriter {
  /**
   * Stores a span's body (inside the write transaction); `replace` when the span row existed;
   * `inputBase`: the row id of the span whose input messages the body's continue (migration 0021).
   */
  write(spanRowid: number | bigint, resourceJson: string, body: EncodedBody, replace: boolean, inputBase?: number | bigint | null): void;
  /**
   * Forgets the dictionary and resource ids it has cached: the caller's transaction rolled back, so rows it
   * stored may be gone (a batch refused for one span after its first spans stored a new resource) — an id
   * kept would be written into bodies with no row behind it, and given to the next new row.
   */
  forget(): void;
}

export function createBodyWriter(db: Db): BodyWriter {
  const dictByHash = db.prepare(BODY_SQL.dictByHash).pluck();
  const addDict = db.prepare(BODY_SQL.addDict);
  const resourceId = db.prepare(BODY_SQL.resourceId).pluck();
  const addResource = db.prepare(BODY_SQL.addResource);
  const insert = db.prepare(BODY_SQL.insert);
  const upsert = db.prepare(BODY_SQL.upsert);
  const handOver = db.prepare(BODY_SQL.handOver);
  // Ids by hash / text, valid within the transactions that committed (see forget).
  const dicts = new Map<string, number>();
  const resources = new Map<string, number>();
  const dictId = (hash: string, bytes: Buffer): number => {
    let id = dicts.get(hash) ?? (dictByHash.get(hash) as number | undefined);
    if (id === undefined) id = Number(addDict.run(hash, bytes).lastInsertRowid);
    dicts.set(hash, id);
    rememberDictionary(db, id, bytes);
    return id;
  };
  const resId = (json: string): number => {
    let id = resources.get(json) ?? (resourceId.get(json) as number | undefined);
    if (id === undefined) id = Number(addResource.run(json).lastInsertRowid);
    resources.set(json, id);
    return id;
  };
  // A transaction that rolls back leaves ids cached here that it never stored: forget them (here when the
  // insert itself throws, and by the writer's caller on any rollback).
  const forget = () => {
    dicts.clear();
    resources.clear();
    forgetDictionaries(db);
  };
  return {
    write(spanRowid, resourceJson, body, replace, inputBase = null) {
      try {
        const d = body.dict_hash ? dictId(body.dict_hash, body.dict!) : 0;
        if (replace) {
          handOver.run(spanRowid);
          upsert.run(spanRowid, resId(resourceJson), d, body.blob, inputBase);
        } else insert.run(spanRowid, resId(resourceJson), d, body.blob, inputBase);
      } catch (e) {
        forget();
        throw e;
      }
    },
    forget,
  };
}

// ---------------------------------------------------------------- older stores

const LEGACY_SQL = {
  // The old table is renamed by migration 0011 in every store (empty in a store made after it).
  needed: `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'span_details_legacy'`,
  chunk: `SELECT span_rowid, ${BODY_FIELDS.filter((f) => f !== 'raw_span').join(', ')}, raw_span_dump, resource_attributes
    FROM span_details_legacy ORDER BY span_rowid LIMIT ?`,
  remove: `DELETE FROM span_details_legacy WHERE span_rowid <= ?`,
  done: [`DROP TABLE span_details_legacy`, `DELETE FROM summary_backfill WHERE name = 'bodies'`],
  count: `SELECT COUNT(*) FROM span_details_legacy`,
} as const;

/** Rows compressed per transaction while converting an older store (keeps the WAL small). */
const LEGACY_CHUNK = 5_000;

/**
 * Compresses the rows a store held before migration 0011 (at open, once; progress to `log`), then
 * drops the old table and gives its pages back. Each chunk is one transaction, so an interrupted
 * conversion resumes where it stopped.
 */
export function compactLegacyBodies(db: Db, log: (msg: string) => void = () => {}): void {
  if (db.readonly || !db.prepare(LEGACY_SQL.needed).get()) return;
  const total = db.prepare(LEGACY_SQL.count).pluck().get() as number;
  const chunk = db.prepare(LEGACY_SQL.chunk);
  const remove = db.prepare(LEGACY_SQL.remove);
  const writer = createBodyWriter(db);
  const encoder = new ThreadBodyEncoder();
  let done = 0;
  for (;;) {
    const rows = chunk.all(LEGACY_CHUNK) as (Omit<SpanBody, 'raw_span'> & { span_rowid: number; raw_span_dump: string; resource_attributes: string })[];
    if (!rows.length) break;
    db.transaction(() => {
      for (const r of rows) {
        const body = encoder.encode({
          ...r,
          input_parsed: JSON.parse(r.input_messages ?? '[]') as SpanMessage[],
          output_parsed: JSON.parse(r.output_messages ?? '[]') as SpanMessage[],
        });
        writer.write(r.span_rowid, r.resource_attributes, body, true);
      }
      remove.run(rows[rows.length - 1]!.span_rowid);
    })();
    done += rows.length;
    log(`compressing span bodies of an older store: ${done} of ${total}`);
  }
  db.transaction(() => LEGACY_SQL.done.forEach((sql) => db.prepare(sql).run()))();
  if (db.pragma('auto_vacuum', { simple: true }) === 2) db.pragma('incremental_vacuum');
}
