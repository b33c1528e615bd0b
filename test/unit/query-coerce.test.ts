/** Query-string coercion of GET operations, from the contract's JSON Schema (transport/query-coerce.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceQuery } from '../../src/main/transport/query-coerce.js';
import { contract } from '../../src/shared/contract/index.js';

describe('coerceQuery', () => {
  const schema = z.strictObject({
    limit: z.number().int().min(1).default(20),
    ratio: z.number().nullable().optional(),
    flag: z.boolean().default(false),
    order: z.enum(['asc', 'desc']).default('asc'),
    after: z.string().optional(),
    either: z.union([z.number(), z.string()]).optional(),
  });

  it('turns numbers, booleans and null into their types; strings and enums stay text', () => {
    expect(coerceQuery(schema, { limit: '20', ratio: 'null', flag: 'true', order: 'desc', after: '42', either: '7' })).toEqual({
      limit: 20, ratio: null, flag: true, order: 'desc', after: '42', either: '7',
    });
    expect(coerceQuery(schema, { ratio: '1.5e3', flag: 'false' })).toEqual({ ratio: 1500, flag: false });
  });

  it('leaves what does not convert, and keys the schema does not know, for zod to name in a 422', () => {
    const out = coerceQuery(schema, { limit: 'twenty', flag: 'yes', toString: '1', __proto__: '2', extra: '3' });
    expect(out).toEqual({ limit: 'twenty', flag: 'yes', toString: '1', extra: '3' });
    expect(schema.safeParse(out).success).toBe(false);
  });

  it('coerces the real GET operations of the contract', () => {
    const q = coerceQuery(contract['training.listCheckpoints'].input, { model_id: 'm', limit: '5', order: 'desc' });
    expect(contract['training.listCheckpoints'].input.parse(q)).toMatchObject({ model_id: 'm', limit: 5, order: 'desc' });
  });
});
