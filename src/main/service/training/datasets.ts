/**
 * SFT training data as versioned datasets, addressed the way the hosted service's open client
 * addresses its uploaded data: `wandb-artifact:///<entity>/<project>/<name>:v<N>` (issue 11). The
 * client uploads train.jsonl as a W&B artifact, then sends that URL; against Loupe a script uploads
 * the JSONL with `POST /v1/preview/datasets?entity=&project=&name=` (the body is the file), which
 * answers the version and URL. Datasets made from conversations in the app are versions too.
 *
 * Files live in `<dataDir>/datasets/<entity>/<project>/<name>/v<N>.jsonl`. An upload is streamed to
 * disk, hashed on the way, and checked line by line in the intake worker before its version exists;
 * identical content uploaded to the same name answers the existing version (as W&B does).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACT_PART } from '../../../shared/contract/training.js';
import { contract, type OpParsedInput, type OpOutput } from '../../../shared/contract/index.js';
import { ServiceError, invalid, notFound } from '../../../shared/errors.js';
import { toValidationIssues } from '../../../shared/validation.js';
import type { ServiceContext } from '../context.js';
import type { DatasetRow } from '../../store/ports.js';
import type { RawBodyRequest } from '../raw-body.js';
import { conversationChat } from '../chat/views.js';
import { bodyToFile } from '../raw-body.js';
import { MAX_SFT_FILE_BYTES, openRegularFile } from '../../training/sft-file.js';
import { iso, newId, nowUs, runtimeOf } from './util.js';

const DATASETS = 'datasets';
const INCOMING = path.join(DATASETS, '.incoming');

type DatasetOut = OpOutput<'training.uploadDataset'>;

export const artifactUrl = (d: Pick<DatasetRow, 'entity' | 'project' | 'name' | 'version'>): string =>
  `wandb-artifact:///${d.entity}/${d.project}/${d.name}:v${d.version}`;

export function datasetOut(d: DatasetRow): DatasetOut {
  return {
    id: d.id,
    entity: d.entity,
    project: d.project,
    name: d.name,
    version: `v${d.version}`,
    url: artifactUrl(d),
    bytes: d.bytes,
    lines: d.lines,
    sha256: d.sha256,
    source: d.source,
    created_at: iso(d.created_at_us)!,
  };
}

/** `<x>-artifact:///<entity>/<project>/<name>[:v<N>|:latest]` → its parts (version null = latest); null if not an artifact URL. */
export function parseArtifactUrl(url: string): { entity: string; project: string; name: string; version: number | null } | null {
  const m = /^[A-Za-z0-9_-]*-artifact:\/\/\/([^/]+)\/([^/]+)\/([^/:]+)(?::(v\d+|latest))?$/.exec(url);
  if (!m) return null;
  const [, entity, project, name, tag] = m as unknown as [string, string, string, string, string | undefined];
  if (![entity, project, name].every((p) => ARTIFACT_PART.test(p))) return null;
  return { entity, project, name, version: tag === undefined || tag === 'latest' ? null : Number(tag.slice(1)) };
}

/** What an SFT job reads: a file path and how errors name it (never by its content). */
export interface TrainingData {
  path: string;
  label: string;
  dataset: DatasetRow | null;
}

/**
 * Resolves a training_data_url at submission: a dataset version (must exist), or a `file://` URL /
 * absolute path of a regular file within the size cap (checked now, read again by the trainer).
 * Anything else is a 422 on training_data_url.
 */
export async function resolveTrainingData(ctx: ServiceContext, url: string): Promise<TrainingData> {
  const art = parseArtifactUrl(url);
  if (art) {
    const d = await ctx.app.training.getDataset(art.entity, art.project, art.name, art.version);
    if (!d) {
      const what = `${art.entity}/${art.project}/${art.name}${art.version === null ? '' : `:v${art.version}`}`;
      throw invalid('training_data_url', `dataset ${what} not found: upload it first with POST /v1/preview/datasets?entity=${art.entity}&project=${art.project}&name=${art.name}`, url);
    }
    return { path: path.join(ctx.dataDir, d.file), label: artifactUrl(d), dataset: d };
  }
  let file: string;
  if (url.startsWith('file://')) {
    try {
      file = fileURLToPath(url);
    } catch (err) {
      throw invalid('training_data_url', `not a valid file:// URL (${(err as Error).message})`, url);
    }
  } else if (path.isAbsolute(url)) file = url;
  else throw invalid('training_data_url', 'must be wandb-artifact:///<entity>/<project>/<name>:v<N> (a dataset uploaded to Loupe), a file:// URL or an absolute path', url);
  try {
    const { handle } = await openRegularFile(file, url, MAX_SFT_FILE_BYTES);
    await handle.close();
  } catch (err) {
    throw invalid('training_data_url', (err as Error).message, url);
  }
  return { path: file, label: url, dataset: null };
}

/** Registers a checked file (under datasets/.incoming) as the next version of a name, or answers the identical one. */
async function register(
  ctx: ServiceContext,
  incoming: string,
  meta: { entity: string; project: string; name: string; bytes: number; lines: number; sha256: string; source: DatasetRow['source'] },
): Promise<DatasetRow> {
  const repo = ctx.app.training;
  const same = await repo.datasetBySha(meta.entity, meta.project, meta.name, meta.sha256);
  if (same) {
    fs.rmSync(incoming, { force: true });
    return same;
  }
  // The version number is chosen and the file moved into place in the row's transaction.
  return repo.addDatasetVersion({ id: newId(), ...meta, created_at_us: nowUs() }, (version) => {
    const rel = path.join(DATASETS, meta.entity, meta.project, meta.name, `v${version}.jsonl`);
    fs.mkdirSync(path.dirname(path.join(ctx.dataDir, rel)), { recursive: true, mode: 0o700 });
    fs.renameSync(incoming, path.join(ctx.dataDir, rel));
    return rel;
  });
}

function incomingFile(ctx: ServiceContext): string {
  const dir = path.join(ctx.dataDir, INCOMING);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `${newId()}.jsonl`);
}

/** Checks an incoming file in the intake worker and registers it; removes it when it is refused. */
async function checkAndRegister(ctx: ServiceContext, file: string, q: { entity: string; project: string; name: string }, bytes: number, sha256: string): Promise<DatasetOut> {
  let lines: number;
  try {
    lines = await runtimeOf(ctx).intake.sftCheck(file, `dataset ${q.entity}/${q.project}/${q.name}`, MAX_SFT_FILE_BYTES);
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw invalid('body', (err as Error).message);
  }
  return datasetOut(await register(ctx, file, { ...q, bytes, lines, sha256, source: 'upload' }));
}

const UploadQuery = contract['training.uploadDataset'].input.omit({ content: true });

/** HTTP: the body is the JSONL, streamed to disk (hashed on the way), then checked off the server thread. */
export async function uploadDatasetFromBody(req: RawBodyRequest, ctx: ServiceContext): Promise<DatasetOut> {
  const q = UploadQuery.safeParse(req.query);
  if (!q.success) {
    req.body.resume();
    throw new ServiceError(422, toValidationIssues(q.error, req.query, () => 'query'));
  }
  const file = incomingFile(ctx);
  const hash = crypto.createHash('sha256');
  const bytes = await bodyToFile(req, file, (c) => hash.update(c));
  return checkAndRegister(ctx, file, q.data, bytes, hash.digest('hex'));
}

/** IPC: the JSONL arrives as `content`. */
export async function uploadDataset(input: OpParsedInput<'training.uploadDataset'>, ctx: ServiceContext): Promise<DatasetOut> {
  if (input.content === undefined) throw invalid('content', 'the dataset content (JSONL) is required over IPC; over HTTP send it as the request body');
  const file = incomingFile(ctx);
  const buf = Buffer.from(input.content, 'utf8');
  fs.writeFileSync(file, buf, { mode: 0o600 });
  const sha = crypto.createHash('sha256').update(buf).digest('hex');
  return checkAndRegister(ctx, file, input, buf.length, sha);
}

export async function listDatasets(input: OpParsedInput<'training.listDatasets'>, ctx: ServiceContext): Promise<OpOutput<'training.listDatasets'>> {
  const rows = await ctx.app.training.pageDatasets({ entity: input.entity ?? null, project: input.project ?? null, name: input.name ?? null, after: input.after ?? null, limit: input.limit });
  if (!rows) throw notFound(`Dataset version ${input.after} (the after cursor) not found`);
  const data = rows.slice(0, input.limit).map(datasetOut);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > input.limit };
}

/** Removes uploads a crash left half-written (call at start, before requests are served). */
export function removeIncoming(dataDir: string): void {
  fs.rmSync(path.join(dataDir, INCOMING), { recursive: true, force: true });
}

// ---- datasets made from conversations (POST /datasets/from-conversations) -----------------

export interface ChatMsg {
  type: string;
  user_message: { text: string } | null;
  assistant_message: { text: string } | null;
  tool_call: { tool_name: string | null; tool_arguments: string | null; tool_result: string | null } | null;
  agent_start: { system_instructions: string | null } | null;
}
interface ConversationView {
  turns: { trace_id: string; messages: ChatMsg[] }[];
  has_more: boolean;
}

type Line = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };

/** Chat-view messages → chat-completions messages (system from the first agent start). */
export function toSftMessages(turns: { messages: ChatMsg[] }[]): Line[] {
  const out: Line[] = [];
  let calls = 0;
  for (const m of turns.flatMap((t) => t.messages)) {
    if (m.type === 'agent_start' && m.agent_start?.system_instructions && !out.some((x) => x.role === 'system')) {
      out.unshift({ role: 'system', content: m.agent_start.system_instructions });
    } else if (m.type === 'user_message' && m.user_message) out.push({ role: 'user', content: m.user_message.text });
    else if (m.type === 'assistant_message' && m.assistant_message?.text) out.push({ role: 'assistant', content: m.assistant_message.text });
    else if (m.type === 'tool_call' && m.tool_call) {
      const id = `call_${++calls}`;
      out.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: m.tool_call.tool_name ?? 'tool', arguments: m.tool_call.tool_arguments ?? '{}' } }] });
      out.push({ role: 'tool', tool_call_id: id, content: m.tool_call.tool_result ?? '' });
    }
  }
  return out;
}

/** What a dataset made from conversations was made from: kept beside its file so a replay can select the same conversations. */
export interface DatasetSources {
  project_id: string;
  conversation_ids: string[];
}
const sourcesFile = (dataDir: string, file: string): string => path.join(dataDir, file.replace(/\.jsonl$/, '.sources.json'));

function writeDatasetSources(dataDir: string, file: string, sources: DatasetSources): void {
  const target = sourcesFile(dataDir, file);
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(sources), { mode: 0o600 });
  fs.renameSync(tmp, target);
}

/** The sources of a dataset version (null: uploaded, or made before sources were kept). */
export function readDatasetSources(dataDir: string, file: string): DatasetSources | null {
  try {
    return JSON.parse(fs.readFileSync(sourcesFile(dataDir, file), 'utf8')) as DatasetSources;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${sourcesFile(dataDir, file)} is not readable JSON (${(err as Error).message})`, { cause: err });
  }
}

/** `<entity>/<project>` → artifact parts in the artifact alphabet (no slash: entity "local"). */
function artifactScope(projectId: string): { entity: string; project: string } {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+$/, '_').slice(0, 128) || '_';
  const i = projectId.indexOf('/');
  return i < 0 ? { entity: 'local', project: clean(projectId) } : { entity: clean(projectId.slice(0, i)), project: clean(projectId.slice(i + 1)) };
}

/** A conversation's turns as the chat shows them (service/chat/views.ts), oldest first, read 50 at a time. */
export async function conversationTurnViews(ctx: ServiceContext, projectId: string, conversationId: string): Promise<ConversationView['turns']> {
  const turns: ConversationView['turns'] = [];
  for (let offset = 0; ; offset += 50) {
    const view: ConversationView = await conversationChat(ctx, { project_id: projectId, conversation_id: conversationId, include_feedback: false, limit: 50, offset });
    turns.unshift(...view.turns); // pages go newest first; turns inside a page oldest first
    if (!view.has_more || view.turns.length === 0) break;
  }
  return turns;
}

export async function fromConversations(input: OpParsedInput<'datasets.fromConversations'>, ctx: ServiceContext): Promise<OpOutput<'datasets.fromConversations'>> {
  const lines: string[] = [];
  const skipped: string[] = [];
  for (const conversation_id of input.conversation_ids) {
    const messages = toSftMessages(await conversationTurnViews(ctx, input.project_id, conversation_id));
    if (!messages.some((m) => m.role === 'assistant' && m.content)) skipped.push(conversation_id);
    else lines.push(JSON.stringify({ messages, tools: [] }));
  }
  const kept = input.conversation_ids.filter((c) => !skipped.includes(c));
  return { ...(await writeProjectDataset(ctx, input.project_id, input.name, 'conversations', lines, kept)), skipped };
}

/**
 * Writes JSONL lines as the next version of a project's dataset (name default `<project>-<kind>-<time>`),
 * with the conversations it was made from kept beside it (a replay selects them again).
 */
export async function writeProjectDataset(ctx: ServiceContext, projectId: string, name: string | undefined, kind: string, lines: string[], conversationIds: string[]) {
  const scope = artifactScope(projectId);
  name ??= `${scope.project}-${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const file = incomingFile(ctx);
  const buf = Buffer.from(lines.length ? `${lines.join('\n')}\n` : '', 'utf8');
  fs.writeFileSync(file, buf, { mode: 0o600 });
  const row = await register(ctx, file, { ...scope, name, bytes: buf.length, lines: lines.length, sha256: crypto.createHash('sha256').update(buf).digest('hex'), source: 'conversations' });
  const full = path.join(ctx.dataDir, row.file);
  writeDatasetSources(ctx.dataDir, row.file, { project_id: projectId, conversation_ids: conversationIds });
  return { url: artifactUrl(row), path: full, lines: row.lines, dataset: datasetOut(row) };
}

