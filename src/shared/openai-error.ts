/**
 * Errors in OpenAI's shape, `{"error": {message, type, param, code}}`, for the operations OpenAI
 * clients call (chat completions): the `openai` npm client reads `error.message` from that body and
 * shows "404 status code (no body)" for anything else. Validation errors answer 400 as OpenAI and
 * vLLM do, with `param` naming the first bad field.
 */
import type { ErrorDetail } from './errors.js';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** Status and body for a service error; `code` (e.g. "model_not_found") and `param` may be given by the thrower. */
export function openAiError(status: number, detail: ErrorDetail, hint: { code?: string | null; param?: string | null } = {}): { status: number; body: OpenAiErrorBody } {
  let message: string;
  let param = hint.param ?? null;
  if (typeof detail === 'string') message = detail;
  else {
    const fields = detail.map((d) => d.loc.filter((p) => p !== 'body').join('.'));
    message = detail.map((d, i) => `${fields[i] || 'body'}: ${d.msg}`).join('; ');
    param ??= fields[0] || null;
  }
  const out = status === 422 ? 400 : status;
  const type = TYPES[out] ?? (out === 503 ? 'service_unavailable' : out >= 500 ? 'server_error' : 'invalid_request_error');
  const code = hint.code ?? (out === 401 ? 'invalid_api_key' : out === 404 ? 'not_found' : status === 422 ? 'invalid_value' : null);
  return { status: out, body: { error: { message, type, param, code } } };
}
