/**
 * Checkpoint files: a directory with model.json (config + weights manifest), weights.bin and
 * meta.json (base model, config, step). Writing goes through a TF.js IOHandler backed by node:fs,
 * because tfjs-node's file:// handler is not available with the pure-JS backend.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { checkWeights, type Weights } from './model.js';
import type { ModelConfig } from './config.js';
import type { AdamState } from './optimize.js';
import { tempCheckpointDir } from './checkpoint-files.js';

export interface CheckpointMeta {
  format: 'loupe-bytes-transformer/1';
  baseModel: string;
  config: ModelConfig;
  step: number;
  createdAt: string;
}

/** An IOHandler that stores artifacts as model.json + weights.bin in `dir`. */
export function fileIOHandler(dir: string): Required<Pick<tf.io.IOHandler, 'save' | 'load'>> {
  return {
    async save(artifacts: tf.io.ModelArtifacts): Promise<tf.io.SaveResult> {
      fs.mkdirSync(dir, { recursive: true });
      const data = artifacts.weightData;
      if (!data || Array.isArray(data)) throw new Error('fileIOHandler: expected one weight buffer');
      const modelJson = {
        format: artifacts.format,
        generatedBy: artifacts.generatedBy,
        modelTopology: artifacts.modelTopology,
        weightsManifest: [{ paths: ['weights.bin'], weights: artifacts.weightSpecs }],
      };
      fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.from(data));
      fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(artifacts) };
    },
    async load(): Promise<tf.io.ModelArtifacts> {
      const jsonPath = path.join(dir, 'model.json');
      if (!fs.existsSync(jsonPath)) throw new Error(`checkpoint ${dir}: model.json not found`);
      const json = JSON.parse(fs.readFileSync(jsonPath, 'utf8')) as {
        format?: string;
        modelTopology?: unknown;
        weightsManifest?: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
      };
      const manifest = json.weightsManifest?.[0];
      if (!manifest) throw new Error(`checkpoint ${dir}: model.json has no weightsManifest`);
      const buf = fs.readFileSync(path.join(dir, manifest.paths[0] ?? 'weights.bin'));
      return {
        format: json.format,
        modelTopology: json.modelTopology as object,
        weightSpecs: manifest.weights,
        weightData: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength),
      };
    },
  };
}

/** Adam's state beside the weights (optimizer.json + optimizer.bin), so the next job continues it. */
const OPT_JSON = 'optimizer.json';
const OPT_BIN = 'optimizer.bin';

async function saveAdam(dir: string, adam: AdamState): Promise<void> {
  const named: Weights = {};
  for (const [k, t] of Object.entries(adam.m)) named[`m/${k}`] = t;
  for (const [k, t] of Object.entries(adam.v)) named[`v/${k}`] = t;
  const { data, specs } = await tf.io.encodeWeights(named);
  fs.writeFileSync(path.join(dir, OPT_BIN), Buffer.from(data));
  fs.writeFileSync(path.join(dir, OPT_JSON), JSON.stringify({ format: 'adam/1', t: adam.t, weightSpecs: specs }));
}

/** The Adam state saved with a checkpoint, or null (checkpoints of step 0, or older than issue 11). */
export function loadAdam(dir: string): AdamState | null {
  const jsonPath = path.join(dir, OPT_JSON);
  if (!fs.existsSync(jsonPath)) return null;
  const json = JSON.parse(fs.readFileSync(jsonPath, 'utf8')) as { format?: string; t?: number; weightSpecs?: tf.io.WeightsManifestEntry[] };
  if (json.format !== 'adam/1' || typeof json.t !== 'number' || !json.weightSpecs) return null;
  const buf = fs.readFileSync(path.join(dir, OPT_BIN));
  const all = tf.io.decodeWeights(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), json.weightSpecs);
  const m: Weights = {};
  const v: Weights = {};
  for (const [k, t] of Object.entries(all)) {
    if (k.startsWith('m/')) m[k.slice(2)] = t;
    else if (k.startsWith('v/')) v[k.slice(2)] = t;
    else t.dispose();
  }
  return { t: json.t, m, v };
}

export async function saveCheckpoint(dir: string, meta: Omit<CheckpointMeta, 'format' | 'createdAt'>, weights: Weights, adam?: AdamState): Promise<void> {
  // Write into a sibling temp dir and rename, so a crash never leaves a half-written checkpoint
  // (a leftover temp dir is removed at the next start: checkpoint-files.ts).
  const tmp = tempCheckpointDir(dir);
  const { data, specs } = await tf.io.encodeWeights(weights);
  await fileIOHandler(tmp).save({
    format: 'loupe-bytes-transformer/1',
    generatedBy: 'loupe built-in trainer',
    modelTopology: meta.config,
    weightSpecs: specs,
    weightData: data,
  });
  const full: CheckpointMeta = { format: 'loupe-bytes-transformer/1', ...meta, createdAt: new Date().toISOString() };
  fs.writeFileSync(path.join(tmp, 'meta.json'), JSON.stringify(full, null, 2));
  if (adam) await saveAdam(tmp, adam);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.renameSync(tmp, dir);
}

export function readMeta(dir: string): CheckpointMeta {
  const p = path.join(dir, 'meta.json');
  if (!fs.existsSync(p)) throw new Error(`checkpoint ${dir}: meta.json not found (not a checkpoint directory)`);
  const meta = JSON.parse(fs.readFileSync(p, 'utf8')) as CheckpointMeta;
  if (meta.format !== 'loupe-bytes-transformer/1') throw new Error(`checkpoint ${dir}: unknown format "${String(meta.format)}"`);
  return meta;
}

export async function loadCheckpoint(dir: string): Promise<{ meta: CheckpointMeta; weights: Weights }> {
  const meta = readMeta(dir);
  const art = await fileIOHandler(dir).load();
  if (!art.weightSpecs || !art.weightData) throw new Error(`checkpoint ${dir}: no weights`);
  const weights = tf.io.decodeWeights(art.weightData, art.weightSpecs);
  checkWeights(meta.config, weights, `checkpoint ${dir}`);
  return { meta, weights };
}
