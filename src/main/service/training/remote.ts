/**
 * Remote trainer backends (semantics §9.9): another server that speaks this same training API
 * (another Loupe, or the hosted service), stored as base URL + key. A model created with
 * `base_model: "remote:<backend>/<remote base model>"` lives there: its jobs are submitted there,
 * their events and the resulting checkpoints are mirrored into this store as they happen, and
 * chat completions are forwarded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError, badRequest } from '../../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import type { BackendRow, JobRow, ModelRow } from '../../store/ports.js';
import { errorMessage, nowUs, type JobEventType } from './util.js';
import { parseArtifactUrl } from './datasets.js';
import { textOf } from '../../../shared/text.js';

/** A body sent as is (a payload file, a dataset) rather than JSON-encoded. */
export class RawBody {
  constructor(
    readonly bytes: Buffer,
    readonly contentType: string,
  ) {}
}

const REMOTE_BASE = /^remote:([A-Za-z0-9_-]{1,64})\/(.+)$/;

/** `remote:<backend>/<base model>` → its parts; null for a local base model. */
export function parseRemoteBase(baseModel: string): { backend: string; base: string } | null {
  const m = REMOTE_BASE.exec(baseModel);
  return m ? { backend: m[1]!, base: m[2]! } : null;
}

/** How often a running remote job's events are polled. */
const POLL_MS = 500;

interface RemotePage<T> {
  data: T[];
  has_more: boolean;
  last_id: string | null;
}

/** Where a backend's API key is kept: the secrets store (settings/secrets.ts), not the database. */
export const backendSecret = (name: string): string => `training.backend.${name}.api_key`;

export class RemoteBackends {
  constructor(private readonly ctx: ServiceContext) {}

  /**
   * Keys stored in the database by an older Loupe move to the secrets store (issue 13.4: a copy of
   * loupe.db must carry no credential). Run at start; without a secrets store (a bare test context)
   * keys stay where they are.
   */
  async moveKeysToSecrets(): Promise<void> {
    const secrets = this.ctx.secrets;
    if (!secrets) return;
    const repo = this.ctx.app.training;
    for (const b of await repo.listBackends()) {
      if (!b.api_key) continue;
      secrets.set(backendSecret(b.name), b.api_key);
      await repo.putBackend({ ...b, api_key: '' });
    }
  }

  private async backend(name: string): Promise<BackendRow> {
    const b = await this.ctx.app.training.getBackend(name);
    if (!b) throw badRequest(`Unknown remote backend "${name}"; configured: ${(await this.ctx.app.training.listBackends()).map((x) => x.name).join(', ') || 'none'}`);
    const key = b.api_key || this.ctx.secrets?.get(backendSecret(name)) || null;
    if (!key) {
      // Encrypted by the desktop app's keychain, and this process cannot read it (e.g. `loupe serve`).
      throw new ServiceError(502, `remote backend "${name}": its API key cannot be read here (it was stored encrypted by the desktop app); enter it again in Training settings`);
    }
    return { ...b, api_key: key };
  }

  /** One call to a backend; a non-2xx answer becomes a ServiceError with the remote's status and detail. */
  async call<T>(name: string, method: string, path: string, body?: unknown): Promise<T> {
    const b = await this.backend(name);
    const url = `${b.base_url.replace(/\/+$/, '')}${path}`;
    let res: Response;
    try {
      const raw = body instanceof RawBody;
      res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${b.api_key}`, ...(body === undefined ? {} : { 'content-type': raw ? body.contentType : 'application/json' }) },
        body: body === undefined ? undefined : raw ? body.bytes : JSON.stringify(body),
      });
    } catch (err) {
      throw new ServiceError(502, `remote backend "${name}" (${b.base_url}) is unreachable: ${errorMessage(err)}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? (JSON.parse(text) as unknown) : {};
    } catch {
      // Not this API (a proxy page, another service): report what came back.
      throw new ServiceError(502, `remote backend "${name}" (${url}) answered ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
    }
    if (!res.ok) {
      const detail = (json as { detail?: unknown }).detail;
      const msg = `remote backend "${name}": ${typeof detail === 'string' ? detail : JSON.stringify(detail ?? json)}`;
      // The caller's own key was fine: a remote auth failure is a bad gateway configuration, not a 401 here.
      if (res.status === 401 || res.status === 403) throw new ServiceError(502, `${msg} (check the API key stored for this backend)`);
      throw new ServiceError(res.status, msg);
    }
    return json as T;
  }

  async createModel(backend: string, base: string, m: { entity: string; project: string; name: string }): Promise<{ id: string }> {
    return this.call(backend, 'POST', '/v1/preview/models', { entity: m.entity, project: m.project, name: m.name, base_model: base, return_existing: true });
  }

  /** Mirrors the remote checkpoint list (ids, steps, metrics) into the local store. */
  async syncCheckpoints(model: ModelRow): Promise<void> {
    const remote: { id: string; step: number; metrics: Record<string, number> }[] = [];
    let after: string | null = null;
    for (;;) {
      const q: string = `?limit=100&order=asc${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const page: RemotePage<{ id: string; step: number; metrics: Record<string, number> }> = await this.call(
        model.backend!,
        'GET',
        `/v1/preview/models/${encodeURIComponent(model.remote_model_id!)}/checkpoints${q}`,
      );
      remote.push(...page.data);
      if (!page.has_more || !page.last_id) break;
      after = page.last_id;
    }
    await this.ctx.app.training.mirrorCheckpoints(model.id, remote, nowUs());
  }

  /**
   * The job's request as the remote receives it: an RL payload file is sent as is with the remote
   * model id spliced in (no parse of a large body here); an SFT job whose data is a dataset uploads
   * that dataset to the remote first and names the remote's version.
   */
  private async submit(model: ModelRow, job: JobRow, payloadFile: string): Promise<{ id: string }> {
    const backend = model.backend!;
    if (job.kind === 'rl') {
      const file = fs.readFileSync(payloadFile);
      const head = Buffer.from(`{"model_id":${JSON.stringify(model.remote_model_id)}${file.length > 2 ? ',' : ''}`);
      return this.call(backend, 'POST', '/v1/preview/training-jobs', new RawBody(Buffer.concat([head, file.subarray(1)]), 'application/json'));
    }
    const p = JSON.parse(fs.readFileSync(payloadFile, 'utf8')) as { training_data_url: string };
    const art = parseArtifactUrl(p.training_data_url);
    if (art) {
      const d = await this.ctx.app.training.getDataset(art.entity, art.project, art.name, art.version);
      if (!d) throw new Error(`dataset ${p.training_data_url} not found`);
      const q = `?entity=${encodeURIComponent(d.entity)}&project=${encodeURIComponent(d.project)}&name=${encodeURIComponent(d.name)}`;
      const up = await this.call<{ url: string }>(backend, 'POST', `/v1/preview/datasets${q}`, new RawBody(fs.readFileSync(path.join(this.ctx.dataDir, d.file)), 'application/jsonl'));
      p.training_data_url = up.url;
    }
    return this.call(backend, 'POST', '/v1/preview/sft-training-jobs', { ...p, model_id: model.remote_model_id });
  }

  /**
   * Submits a job remotely and mirrors its events until a terminal one. The new checkpoint is
   * mirrored, then it returns at the remote training_ended without storing it: the runner stores
   * training_ended in the same write as the COMPLETED row (a client that sees the end sees the
   * finished job). A remote training_failed throws its message.
   */
  async runJob(model: ModelRow, job: JobRow, payloadFile: string, emit: (type: JobEventType, data: Record<string, unknown>) => void, stopped: () => boolean): Promise<void> {
    const { id: remoteId } = await this.submit(model, job, payloadFile);
    await this.ctx.app.training.updateJob(job.id, { remote_job_id: remoteId });
    let after: string | null = null;
    for (;;) {
      // Shutdown must not wait for a long remote job; it keeps running remotely.
      if (stopped()) throw new Error(`Loupe stopped while following remote job ${remoteId}`);
      if (!(await this.ctx.app.training.getModel(model.id))) throw new Error(`model ${model.id} was deleted while the job ran`);
      const q: string = `?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const page: RemotePage<{ id: string; type: string; data: Record<string, unknown> }> = await this.call(
        model.backend!,
        'GET',
        `/v1/preview/training-jobs/${encodeURIComponent(remoteId)}/events${q}`,
      );
      for (const e of page.data) {
        after = e.id;
        if (e.type === 'training_failed') throw new Error(textOf(e.data.error_message) || 'remote job failed');
        if (e.type === 'training_ended') {
          await this.syncCheckpoints(model);
          return;
        }
        emit(e.type as JobEventType, e.data);
      }
      if (!page.has_more) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
