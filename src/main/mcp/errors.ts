/**
 * What an agent reads when a tool cannot answer: one `isError` tool result (never a protocol
 * error) naming the argument at fault and what it accepts, or what to do (send the key, retry later).
 */
import { ServiceError, errorMessage, type ValidationIssue } from '../../shared/errors.js';
import { StoreAbortedError } from '../store/ports.js';
import { KEY_HINT } from './caller.js';
import { ToolError, type ArgOf } from './tool.js';

const defaultArg: ArgOf = (loc) => loc.filter((p, i) => !(i === 0 && (p === 'body' || p === 'query' || p === 'path'))).join('.');

function issueText(issue: ValidationIssue, argOf: ArgOf): string {
  const arg = argOf(issue.loc) || 'arguments';
  const allowed = issue.ctx && 'expected' in issue.ctx ? ` (allowed: ${String(issue.ctx.expected)})` : '';
  return `argument "${arg}": ${issue.msg}${allowed}`;
}

export function errorText(tool: string, err: unknown, argOf: ArgOf = defaultArg): string {
  if (err instanceof ToolError) return err.message;
  if (err instanceof StoreAbortedError) return `${tool} was cancelled`;
  if (err instanceof ServiceError) {
    if (err.status === 401) return `${tool} needs Loupe's API key for this (${errorMessage(err)}): ${KEY_HINT}`;
    if (err.status === 422 && Array.isArray(err.detail)) return err.detail.map((d) => issueText(d, argOf)).join('; ');
    if (err.status === 429 || err.status === 503) {
      return `Loupe cannot answer right now (${errorMessage(err)}); try again${err.retryAfterSeconds ? ` in ${err.retryAfterSeconds} s` : ' shortly'}`;
    }
    if (err.status < 500) return errorMessage(err);
  }
  return `${tool} failed inside Loupe: ${errorMessage(err)}`;
}
