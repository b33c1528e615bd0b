/**
 * SFT and RL jobs: turn examples or samples into masked sequences, batch them, optimise from the base
 * checkpoint (continuing its Adam state) and write the next checkpoint (step + 1) — also when nothing
 * was trainable (zero steps, same weights).
 */
import fs from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import type { RlPayloadFile, RlSample, SftDataFile, SftExample, StepMetrics } from './engine.js';
import type { TrajectoryGroup } from '../../shared/contract/training.js';
import { clip, type TrainSeq } from './batch.js';
import { loadAdam, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { optimize, type StepGate } from './optimize.js';
import { encodeChat } from './tokenizer.js';
import { BUILTIN_RL_LR, VOCAB_SIZE } from './config.js';
import { readSftFile } from './sft-file.js';
import { buildRlSamples, nothingTrainable, rlTrainingOrder } from './rl-samples.js';

/** 'auto' batch size: 8 sequences per gradient step suits the tiny models on two CPU cores. */
export const AUTO_BATCH_SIZE = 8;
/**
 * Default RL learning rate. The hosted service's 5e-6 is meant for LoRA on billion-parameter models;
 * a from-scratch model of ~0.1–0.8 M parameters under Adam needs steps ~200× larger to move at all
 * in a few jobs: 5e-6 × 200 = 1e-3.
 */
export const RL_DEFAULT_LR = BUILTIN_RL_LR;
export const RL_DEFAULT_BATCH = 8;

interface Hooks {
  onStart?: (info: { numSteps: number; numSequences: number }) => void;
  onStep: (m: StepMetrics) => void;
  gate?: StepGate;
}

function chunk<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

async function run(
  baseDir: string,
  outDir: string,
  toSeqs: (contextLength: number) => TrainSeq[],
  batchSize: number,
  lr: number | number[],
  kind: 'sft' | 'cispo' | 'ppo',
  hooks: Hooks,
): Promise<void> {
  const { meta, weights } = await loadCheckpoint(baseDir);
  const adam = loadAdam(baseDir);
  try {
    const cfg = meta.config;
    const seqs = toSeqs(cfg.contextLength)
      .map((s) => clip(cfg, s))
      .filter((s) => s.mask.some((m) => m > 0));
    const batches = chunk(seqs, batchSize);
    let lrs: number[];
    if (Array.isArray(lr)) {
      if (batches.length > 0 && lr.length !== batches.length) {
        throw new Error(`learning_rate has ${lr.length} values but the data makes ${batches.length} batches (one rate per batch)`);
      }
      lrs = lr;
    } else lrs = batches.map(() => lr);
    lrs.forEach((v, i) => {
      if (!Number.isFinite(v) || v < 0) throw new Error(`learning_rate[${i}] must be a finite number ≥ 0, got ${v}`);
    });
    hooks.onStart?.({ numSteps: batches.length, numSequences: seqs.length });
    const trained = await optimize(cfg, weights, batches, lrs, kind, hooks.onStep, adam, hooks.gate);
    try {
      if (hooks.gate?.signal?.aborted) throw new Error(String(hooks.gate.signal.reason ?? 'the job was cancelled'));
      await saveCheckpoint(outDir, { baseModel: meta.baseModel, config: cfg, step: meta.step + 1 }, trained.weights, trained.adam);
    } finally {
      tf.dispose([...Object.values(trained.weights), ...Object.values(trained.adam.m), ...Object.values(trained.adam.v)]);
    }
  } finally {
    tf.dispose(Object.values(weights));
    if (adam) tf.dispose([...Object.values(adam.m), ...Object.values(adam.v)]);
  }
}

export async function sft(args: {
  baseCheckpointDir: string;
  outCheckpointDir: string;
  examples?: SftExample[];
  dataFile?: SftDataFile;
  batchSize: number | 'auto';
  learningRate: number | number[];
  assistantTurns?: 'all' | 'last';
} & Hooks): Promise<void> {
  const bs = args.batchSize === 'auto' ? AUTO_BATCH_SIZE : args.batchSize;
  if (!Number.isInteger(bs) || bs < 1) throw new Error(`batch_size must be a positive integer or "auto", got ${String(args.batchSize)}`);
  if ((args.examples === undefined) === (args.dataFile === undefined)) throw new Error('sft needs exactly one of examples and dataFile');
  const examples = args.examples ?? (await readSftFile(args.dataFile!.path, args.dataFile!.label, args.dataFile!.maxBytes));
  const toSeqs = () =>
    examples.map((ex, i) => {
      if (!Array.isArray(ex?.messages)) throw new Error(`examples[${i}].messages must be an array of chat messages`);
      let enc;
      try {
        enc = encodeChat(ex.messages, { addGenerationPrompt: false, onlyLastAssistant: args.assistantTurns === 'last' });
      } catch (e) {
        throw new Error(`examples[${i}].${(e as Error).message}`, { cause: e });
      }
      return { tokens: enc.tokens, mask: enc.trainable.slice(1) };
    });
  await run(args.baseCheckpointDir, args.outCheckpointDir, toSeqs, bs, args.learningRate, 'sft', args);
}

/** Samples of a job's payload file (`{trajectory_groups, ...}`, checked when the job was accepted). */
async function samplesFromPayload(file: RlPayloadFile): Promise<RlSample[]> {
  const payload = JSON.parse(await fs.promises.readFile(file.path, 'utf8')) as { trajectory_groups: TrajectoryGroup[] };
  const { samples, stats } = buildRlSamples(payload.trajectory_groups, file.options);
  if (samples.length === 0 && stats.withAdvantage > 0) throw new Error(nothingTrainable(stats));
  return samples;
}

export async function rl(args: {
  baseCheckpointDir: string;
  outCheckpointDir: string;
  samples?: RlSample[];
  payloadFile?: RlPayloadFile;
  loss: 'cispo' | 'ppo';
  learningRate?: number;
  batchSize?: number;
} & Hooks): Promise<void> {
  const bs = args.batchSize ?? RL_DEFAULT_BATCH;
  if (!Number.isInteger(bs) || bs < 1) throw new Error(`batchSize must be a positive integer, got ${bs}`);
  if (args.loss !== 'cispo' && args.loss !== 'ppo') throw new Error(`loss must be "cispo" or "ppo", got "${String(args.loss)}"`);
  if ((args.samples === undefined) === (args.payloadFile === undefined)) throw new Error('rl needs exactly one of samples and payloadFile');
  const samples = args.samples ?? (await samplesFromPayload(args.payloadFile!));
  const toSeqs = () =>
    rlTrainingOrder(samples.map((s, i) => [s, i] as const)).map(([s, i]) => {
      const ids = s.completionTokenIds;
      if (ids.length !== s.sampledLogprobs.length) {
        throw new Error(`samples[${i}]: ${ids.length} completion tokens but ${s.sampledLogprobs.length} sampled logprobs`);
      }
      if (!Number.isFinite(s.advantage)) throw new Error(`samples[${i}].advantage must be a finite number`);
      ids.forEach((t, j) => {
        if (!Number.isInteger(t) || t < 0 || t >= VOCAB_SIZE) throw new Error(`samples[${i}].completionTokenIds[${j}]: ${t} is not a token id of this model`);
      });
      let prompt;
      try {
        prompt = encodeChat(s.prompt, { addGenerationPrompt: true }).tokens;
      } catch (e) {
        throw new Error(`samples[${i}].prompt ${(e as Error).message}`, { cause: e });
      }
      const pre = prompt.length - 1;
      return {
        tokens: [...prompt, ...ids],
        mask: [...Array<number>(pre).fill(0), ...ids.map(() => (s.advantage === 0 ? 0 : 1))],
        oldLogp: [...Array<number>(pre).fill(0), ...s.sampledLogprobs],
        advantage: s.advantage,
      };
    });
  await run(args.baseCheckpointDir, args.outCheckpointDir, toSeqs, bs, args.learningRate ?? RL_DEFAULT_LR, args.loss, args);
}
