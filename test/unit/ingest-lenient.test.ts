import { describe, expect, it } from 'vitest';
import { anyValue, attributes, jsonish, readEnum, readId, readInt64, readIntValue, strList } from '../../src/main/service/ingest/lenient.js';
import { walkRequest } from '../../src/main/service/ingest/otlp.js';
import { intMapJson } from '../../src/main/store/sqlite/ingest.js';
import type { SpanRecord } from '../../src/main/domain/span.js';

function spansOf(req: unknown, projectId?: string): { spans: SpanRecord[]; skipped: string[] } {
  const spans: SpanRecord[] = [];
  const skipped: string[] = [];
  walkRequest(req as Record<string, unknown>, projectId, { span: (s) => spans.push(s), skip: (r) => skipped.push(r) });
  return { spans, skipped };
}

describe('lenient readers', () => {
  it('ids: hex of either case, base64, bytes; empty, all-zero and wrong-length ids are absent', () => {
    expect(readId('5B8EFFF798038103D269B633813FC60C', 16)).toBe('5b8efff798038103d269b633813fc60c');
    const b64 = Buffer.from('5b8efff798038103d269b633813fc60c', 'hex').toString('base64');
    expect(readId(b64, 16)).toBe('5b8efff798038103d269b633813fc60c');
    expect(readId(Buffer.from('eee19b7ec3c1b174', 'hex').toString('base64url'), 8)).toBe('eee19b7ec3c1b174');
    expect(readId(new Uint8Array(Buffer.from('eee19b7ec3c1b174', 'hex')), 8)).toBe('eee19b7ec3c1b174');
    expect(readId('', 8)).toBeNull();
    expect(readId('0000000000000000', 8)).toBeNull();
    expect(readId('abc', 8)).toBeNull();
    expect(readId('eee19b7ec3c1b174', 16)).toBeNull();
  });

  it('enums as integers, numeric strings, full names or short names', () => {
    const kinds = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
    for (const v of [3, '3', 'SPAN_KIND_CLIENT', 'client', 'CLIENT']) expect(readEnum(v, 'SPAN_KIND_', kinds, 'UNSPECIFIED')).toBe('CLIENT');
    expect(readEnum('STATUS_CODE_ERROR', 'STATUS_CODE_', ['UNSET', 'OK', 'ERROR'] as const, 'UNSET')).toBe('ERROR');
    expect(readEnum(undefined, 'STATUS_CODE_', ['UNSET', 'OK', 'ERROR'] as const, 'UNSET')).toBe('UNSET');
    expect(readEnum('SPAN_KIND_WEIRD', 'SPAN_KIND_', kinds, 'UNSPECIFIED')).toBe('UNSPECIFIED');
  });

  it('int64 as string or number without losing precision', () => {
    expect(readInt64('1788787663735867904')).toBe(1788787663735867904n);
    expect(readInt64(1749823200000000000)).toBe(1749823200000000000n);
    expect(readIntValue('1024')).toBe(1024);
    expect(readIntValue('9007199254740993')).toBe(9007199254740993n);
    expect(readIntValue('12.5')).toBeNull();
    expect(intMapJson({ big: 9007199254740993n, small: 3 })).toBe('{"big":9007199254740993,"small":3}');
  });

  it('AnyValue trees in camelCase or snake_case; JSON strings holding JSON', () => {
    expect(
      anyValue({
        kvlistValue: { values: [{ key: 'a', value: { arrayValue: { values: [{ intValue: '1' }, { string_value: 'x' }, { boolValue: true }] } } }] },
      }),
    ).toEqual({ a: [1, 'x', true] });
    expect(anyValue({ double_value: 0.5 })).toBe(0.5);
    expect(anyValue({})).toBeNull();
    expect(attributes([{ key: 'k', value: { stringValue: 'v' } }, { nokey: 1 }])).toEqual({ k: 'v' });
    expect(jsonish('{"a":[1]}')).toEqual({ a: [1] });
    expect(jsonish('[oops')).toBe('[oops');
    expect(jsonish('plain')).toBe('plain');
  });

  it('string lists from arrays, JSON strings and comma strings', () => {
    expect(strList(['stop'])).toEqual(['stop']);
    expect(strList('["tool_calls","stop"]')).toEqual(['tool_calls', 'stop']);
    expect(strList('stop, length')).toEqual(['stop', 'length']);
    expect(strList(null)).toEqual([]);
  });

  it('snake_case requests, instrumentationLibrarySpans, status {}, base64 ids; unreadable spans are skipped with a reason', () => {
    const req = {
      resource_spans: [
        {
          resource: { attributes: [{ key: 'svc.project_id', value: { string_value: 'acme/shop' } }, { key: 'service.name', value: { stringValue: 'api' } }] },
          instrumentationLibrarySpans: [
            {
              instrumentationLibrary: { name: 'old-lib', version: '0.9' },
              spans: [
                {
                  trace_id: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex').toString('base64'),
                  span_id: 'B7AD6B7169203331',
                  parent_span_id: '',
                  name: 'chat',
                  kind: 'SPAN_KIND_CLIENT',
                  start_time_unix_nano: 1788787663735867904,
                  end_time_unix_nano: '1788787664472495104',
                  status: {},
                },
                { span_id: 'b7ad6b7169203332', name: 'no trace id' },
              ],
            },
          ],
        },
      ],
    };
    const { spans, skipped } = spansOf(req);
    expect(skipped).toEqual(['missing or invalid trace_id']);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      project_id: 'acme/shop',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: 'b7ad6b7169203331',
      parent_span_id: null,
      span_kind: 'CLIENT',
      status_code: 'UNSET',
      service_name: 'api',
      scope_name: 'old-lib',
      scope_version: '0.9',
      end_ns: 1788787664472495104n,
    });
    // The start given as a JSON number lost precision in JSON.parse already; it is read as that number.
    expect(spans[0]!.start_ns).toBe(BigInt(1788787663735867904));
    expect(spansOf(req, 'header/wins').spans[0]!.project_id).toBe('header/wins');
  });
});
