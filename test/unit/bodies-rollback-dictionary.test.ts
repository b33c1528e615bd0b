/**
 * A dictionary stored in a transaction that rolls back is gone, and the next dictionary stored takes its
 * row id. The connection that wrote it may have read bodies with it meanwhile (its SQL functions keep a
 * decoder per dictionary id): after the rollback (the body writer's `forget`, which every rollback of
 * the writer calls) the bodies of the new dictionary must read back whole, not through the old one's codec.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/main/store/sqlite/open.js';
import { createBodyWriter } from '../../src/main/store/sqlite/bodies.js';
import { BODY_FIELDS, BodyEncoder, type SpanBody } from '../../src/main/store/sqlite/body-codec.js';

const bodyOf = (output: string): SpanBody => ({ ...Object.fromEntries(BODY_FIELDS.map((f) => [f, null])), output_messages: output } as SpanBody);
const dictionary = (word: string) => Buffer.from(Array.from({ length: 400 }, (_, i) => `${word} ${i} `).join(''));

describe('body codecs after a rollback', () => {
  it('a new dictionary that takes a rolled-back one\'s id reads with its own bytes', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'loupe-dict-rollback-')), 'loupe.db');
    const db = openDatabase(file);
    try {
      db.pragma('foreign_keys = OFF'); // bodies without span rows: only their codecs are under test
      const writer = createBodyWriter(db);
      const read = (rowid: number) => db.prepare(`SELECT loupe_body(dict_id, body, 'output_messages') FROM span_bodies WHERE span_rowid = ?`).pluck().get(rowid) as string;
      const dictIdOf = (rowid: number) => db.prepare('SELECT dict_id FROM span_bodies WHERE span_rowid = ?').pluck().get(rowid) as number;
      const a = new BodyEncoder(dictionary('apple'));
      const b = new BodyEncoder(dictionary('zebra'));
      const textA = '[{"role":"assistant","parts":[{"type":"text","content":"apple 1 apple 2 apple 3"}]}]';
      const textB = '[{"role":"assistant","parts":[{"type":"text","content":"zebra 7 zebra 8 zebra 9"}]}]';

      db.exec('BEGIN');
      writer.write(1, '{}', { blob: a.encode(bodyOf(textA)), dict_hash: a.hash, dict: a.dictionary }, false);
      expect(read(1)).toBe(textA); // the connection now keeps a decoder for this dictionary's id
      const rolledBackId = dictIdOf(1);
      db.exec('ROLLBACK');
      writer.forget();

      db.exec('BEGIN');
      writer.write(2, '{}', { blob: b.encode(bodyOf(textB)), dict_hash: b.hash, dict: b.dictionary }, false);
      db.exec('COMMIT');
      expect(dictIdOf(2)).toBe(rolledBackId); // the same row id, another dictionary
      expect(read(2)).toBe(textB);
    } finally {
      db.close();
    }
  });
});
