import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, and the shared OTLP samples beside it (CI clones the repo with shared/ next to it). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const samplesDir = path.resolve(repoRoot, '../shared/data/otlp-samples');
