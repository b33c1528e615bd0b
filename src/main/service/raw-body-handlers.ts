/** The operations whose HTTP body the service reads itself (contract `rawBody`; see raw-body.ts). */
import type { RawBodyHandler } from './raw-body.js';
import { createRlJobFromBody } from './training/jobs.js';
import { uploadDatasetFromBody } from './training/datasets.js';
import { logFromBody } from './training/log.js';

export const rawBodyHandlers: Record<string, RawBodyHandler> = {
  'training.createRlJob': createRlJobFromBody,
  'training.uploadDataset': uploadDatasetFromBody,
  'training.log': logFromBody,
};
