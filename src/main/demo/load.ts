/**
 * Loads the demo into a store through the same importer as real files (OTLP JSON bodies), then adds
 * the feedback records. Loading twice is harmless: span ids are seeded, so spans are replaced, and
 * feedback ids are seeded too and skipped when present.
 */
import type { Stores } from '../store/ports.js';
import type { EventBus } from '../service/events.js';
import { importBuffer } from '../service/ingest/index.js';
import { generateDemo, type DemoOptions } from './generate.js';

export interface LoadDemoResult {
  project_id: string;
  conversations: number;
  traces: number;
  spans: number;
  feedback: number;
}

export async function loadDemo(store: Pick<Stores, 'traces' | 'app'>, opts: DemoOptions & { projectId?: string; events?: EventBus } = {}): Promise<LoadDemoResult> {
  const projectId = opts.projectId ?? 'local/demo';
  const seed = opts.seed ?? 1187;
  const demo = generateDemo({ ...opts, seed });
  // One JSON Lines body (a request per line): one batch write instead of one per turn, which a
  // remote store (ClickHouse: several round trips per write) answers in a second instead of ~15.
  const body = Buffer.from(demo.requests.map((r) => JSON.stringify(r)).join('\n'));
  const report = await importBuffer(store.traces, body, { projectId });
  if (report.error_count) throw new Error(`demo data failed to import: ${report.errors.map((e) => e.message).join('; ')}`);
  const spans = report.spans_imported + report.spans_replaced;
  let feedback = 0;
  for (const [i, f] of demo.feedback.entries()) {
    // Feedback ids are global: the project is part of the id, or loading the demo into a second project
    // collided with the first's records halfway (issue 13.10). local/demo keeps the ids it always had.
    const id = projectId === 'local/demo' ? `demo-${seed}-${i}` : `demo-${seed}-${i}@${projectId}`;
    const existing = (await store.app.feedback.forTargets(projectId, f.target_kind, [f.target_id])).get(f.target_id) ?? [];
    if (existing.some((r) => r.id === id)) continue;
    await store.app.feedback.insert({ id, project_id: projectId, ...f });
    feedback += 1;
  }
  opts.events?.emit({ type: 'data.changed', project_id: projectId, tables: ['spans', 'feedback'] });
  return { project_id: projectId, conversations: demo.conversations, traces: demo.traces, spans, feedback };
}
