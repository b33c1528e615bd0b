/**
 * The training intake thread: parses and checks request bodies too large to parse on the server
 * thread (an RL job or a /log of up to 64 MiB), writes the job's payload file or builds the rollout
 * spans, and checks uploaded SFT datasets line by line. It answers small results (a summary, or the first validation issues); the
 * parsed body never travels back to the server thread.
 */
import { parentPort } from 'node:worker_threads';
import { contract } from '../../../shared/contract/index.js';
import { toValidationIssues } from '../../../shared/validation.js';
import { errorMessage, type ValidationIssue } from '../../../shared/errors.js';
import { rlSummary, writePayload } from './payload.js';
import { buildRollouts, type LinkedRollout, type RolloutModel } from './rollouts.js';
import { forEachLine, openRegularFile, parseSftLine } from '../../training/sft-file.js';

const port = parentPort;
if (!port) throw new Error('the training intake must run in a worker thread');

/** Validation answers list at most this many issues, each without an `input` larger than INPUT_MAX. */
const MAX_ISSUES = 20;
const INPUT_MAX = 1024;

function capIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const shown = issues.slice(0, MAX_ISSUES).map((i) => {
    if (i.input === undefined) return i;
    const size = JSON.stringify(i.input)?.length ?? 0;
    return size > INPUT_MAX ? { ...i, input: `(${size} characters, not repeated)` } : i;
  });
  if (issues.length > MAX_ISSUES) {
    shown.push({ loc: ['body'], msg: `${issues.length - MAX_ISSUES} more problems not listed`, type: 'too_many_errors' });
  }
  return shown;
}

export type IntakeResult = { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] };

/** A JSON object body, or the FastAPI-shaped issue saying why not. */
function jsonObject(body: ArrayBuffer): { ok: true; json: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] } {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch (err) {
    const pos = /position (\d+)/.exec(errorMessage(err));
    return { ok: false, issues: [{ loc: ['body', pos ? Number(pos[1]) : 0], msg: 'JSON decode error', type: 'json_invalid', input: {} }] };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, issues: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] };
  }
  return { ok: true, json: json as Record<string, unknown> };
}

/** An RL job body: JSON object → the contract's schema → payload file + summary. */
function rlBody(args: { body: ArrayBuffer; dataDir: string; payloadRel: string }): IntakeResult {
  const j = jsonObject(args.body);
  if (!j.ok) return j;
  const json = j.json;
  const parsed = contract['training.createRlJob'].input.safeParse(json);
  if (!parsed.success) return { ok: false, issues: capIssues(toValidationIssues(parsed.error, json)) };
  const { model_id, ...payload } = parsed.data;
  writePayload(args.dataDir, args.payloadRel, payload);
  return { ok: true, value: { model_id, experimental_config: payload.experimental_config ?? null, ...rlSummary(payload.trajectory_groups) } };
}

export type LogIntakeResult =
  | { ok: true; request: ArrayBuffer | null; linked: LinkedRollout[]; rewards: { trace_id: string; reward: number }[]; metrics: Record<string, number> }
  | { ok: false; issues: ValidationIssue[] };

/** A /log body (the path's model_id wins over the body's): checked, then its rollout spans built as an OTLP request. */
function logBody(args: { body: ArrayBuffer; model: RolloutModel; step: number; modelId: string; t0: bigint }): { value: LogIntakeResult; transfer: ArrayBuffer[] } {
  const j = jsonObject(args.body);
  if (!j.ok) return { value: j, transfer: [] };
  const json = { ...j.json, model_id: args.modelId };
  const parsed = contract['training.log'].input.safeParse(json);
  if (!parsed.success) return { value: { ok: false, issues: capIssues(toValidationIssues(parsed.error, json)) }, transfer: [] };
  const r = buildRollouts(args.model, parsed.data.split, args.step, parsed.data.trajectory_groups, args.t0);
  const request = r.request ? Buffer.from(JSON.stringify(r.request)) : null;
  const ab = request ? request.buffer.slice(request.byteOffset, request.byteOffset + request.length) : null;
  return { value: { ok: true, request: ab, linked: r.linked, rewards: r.rewards, metrics: r.metrics }, transfer: ab ? [ab] : [] };
}

/** An uploaded dataset: every line must be an SFT example; answers the line count or the first error. */
async function sftCheck(args: { path: string; label: string; maxBytes: number }): Promise<{ ok: true; lines: number } | { ok: false; error: string }> {
  try {
    const { handle } = await openRegularFile(args.path, args.label, args.maxBytes);
    let lines = 0;
    try {
      await forEachLine(handle, (line, n) => {
        parseSftLine(line, n, args.label);
        lines++;
      });
    } finally {
      await handle.close();
    }
    if (lines === 0) return { ok: false, error: `${args.label}: no training examples (the data is empty)` };
    return { ok: true, lines };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

port.on('message', (req: { id: number; op: string; args: Record<string, unknown> }) => {
  const run = async (): Promise<{ value: unknown; transfer?: ArrayBuffer[] }> => {
    if (req.op === 'rl-body') return { value: rlBody(req.args as Parameters<typeof rlBody>[0]) };
    if (req.op === 'log-body') return logBody(req.args as Parameters<typeof logBody>[0]);
    if (req.op === 'sft-check') return { value: await sftCheck(req.args as Parameters<typeof sftCheck>[0]) };
    throw new Error(`unknown intake operation "${req.op}"`);
  };
  run().then(
    (r) => port.postMessage({ id: req.id, type: 'result', value: r.value }, r.transfer ?? []),
    (err: unknown) => port.postMessage({ id: req.id, type: 'error', message: errorMessage(err) }),
  );
});
