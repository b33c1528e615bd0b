import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, and the OTLP sample traces kept in the repository's test data (provenance in their README). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const samplesDir = path.join(repoRoot, 'test/fixtures/otlp-samples');
