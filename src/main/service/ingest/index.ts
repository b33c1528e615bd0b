/**
 * Trace import (semantics §3): `importFile` streams a file from disk, `importBuffer` takes a body
 * (POST /v1/traces, UI uploads). Both detect the format by content, normalize every span through
 * the dialect mapping table, commit in batches and return an ImportReport.
 */
export { importFile } from './file.js';
export type { ImportFileOptions, ImportProgress } from './read-file.js';
export { importBuffer, type ImportBufferOptions, MAX_BODY_BYTES } from './buffer.js';
export { encodeResponse as encodeOtlpProtoResponse } from './protobuf.js';
export { DEFAULT_PROJECT } from './normalize.js';
export type { ImportReport } from '../../../shared/contract/import-report.js';
