import type { Handlers, HandlerResult } from '../handler-types.js';
import { chatCompletions } from './inference.js';
import { createModel, deleteCheckpoints, deleteModel, listCheckpoints, listModels } from './models.js';
import { cancelJob, createRlJob, createSftJob, getJob, jobEvents, listJobs } from './jobs.js';
import { logTrajectories } from './log.js';
import { health, systemCheck } from './health.js';
import { fromConversations, listDatasets, uploadDataset } from './datasets.js';
import { datasetFromReviews } from '../evals/sft.js';
import { getSettings, updateSettings } from './settings.js';

/** Handlers of the training operations (contract/training.ts); each lives in the module named for it. */
export const trainingHandlers = {
  // A body or (stream: true) an async iterable of chunks; HandlerResult spells those as separate promises.
  'training.chatCompletions': (input, ctx, call) => chatCompletions(input, ctx, call) as HandlerResult<'training.chatCompletions'>,
  'training.createModel': createModel,
  'training.listModels': listModels,
  'training.deleteModel': deleteModel,
  'training.deleteCheckpoints': deleteCheckpoints,
  'training.listCheckpoints': listCheckpoints,
  'training.log': logTrajectories,
  'training.createSftJob': createSftJob,
  'training.createRlJob': createRlJob,
  'training.getJob': getJob,
  'training.listJobs': listJobs,
  'training.jobEvents': jobEvents,
  'training.cancelJob': cancelJob,
  'training.uploadDataset': uploadDataset,
  'training.listDatasets': listDatasets,
  'training.health': () => health(),
  'training.systemCheck': (_input, ctx) => systemCheck(ctx),
  'datasets.fromConversations': fromConversations,
  'datasets.fromReviews': datasetFromReviews,
  'training.getSettings': (_input, ctx) => getSettings(ctx),
  'training.updateSettings': updateSettings,
} satisfies Partial<Handlers>;
