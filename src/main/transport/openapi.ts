/**
 * GET /openapi.json, generated from the contract with zod 4's own JSON Schema export, so the
 * document can never drift from what the server validates.
 */
import { z } from 'zod';
import { contract } from '../../shared/contract/index.js';
import { pathParams, type OpDef } from '../../shared/contract/define.js';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete s.$schema;
  return s;
};

const openapiPath = (p: string) => p.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

export function buildOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, def] of Object.entries(contract) as [string, OpDef][]) {
    const input = toSchema(def.input, 'input');
    const inPath = pathParams(def.path);
    const props = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const parameters = Object.entries(props)
      .filter(([key]) => inPath.includes(key) || def.method === 'GET')
      .map(([key, schema]) => ({ name: key, in: inPath.includes(key) ? 'path' : 'query', required: inPath.includes(key) || required.has(key), schema }));
    const bodyProps = Object.fromEntries(Object.entries(props).filter(([key]) => !inPath.includes(key)));
    const operation: Record<string, unknown> = {
      operationId: name,
      summary: def.summary,
      tags: [name.split('.')[0]],
      ...(parameters.length ? { parameters } : {}),
      ...(def.method !== 'GET' && Object.keys(bodyProps).length
        ? {
            requestBody: {
              required: [...required].some((k) => !inPath.includes(k)),
              content: { 'application/json': { schema: { ...input, properties: bodyProps, required: [...required].filter((k) => !inPath.includes(k)) } } },
            },
          }
        : {}),
      ...(def.auth === 'key' ? { security: [{ bearer: [] }] } : def.keyFor ? { security: [{}, { bearer: [] }], description: `Some inputs need the key: ${def.keyForDoc ?? 'see the summary'}.` } : {}),
      responses: {
        '200': {
          description: 'OK',
          content: { [def.stream === 'jsonl' ? 'application/jsonl' : 'application/json']: { schema: toSchema(def.output, 'output') } },
        },
        ...Object.fromEntries(
          (def.alsoAnswers ?? []).map((a) => [String(a.status), { description: a.description, content: { 'application/json': { schema: toSchema(def.output, 'output') } } }]),
        ),
        '422': { description: 'Validation error', content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } } },
      },
    };
    for (const p of [def.path, ...(def.aliases ?? [])]) {
      (paths[openapiPath(p)] ??= {})[def.method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Loupe', version, description: 'Local agent-trace query and training service. Generated from the contract.' },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        HTTPValidationError: {
          type: 'object',
          properties: {
            detail: {
              type: 'array',
              items: {
                type: 'object',
                required: ['loc', 'msg', 'type'],
                properties: { loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, type: { type: 'string' }, input: {}, ctx: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  };
}
