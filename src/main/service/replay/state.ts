/**
 * A replay's state, one JSON file per replay in `<data>/replays/` (0600 in a 0700 folder), written
 * whole to a temporary file and renamed after every item that changes, so a restart finds each turn
 * done or not and resumes the rest (docs/replay.md "Bounds, cancel, resume"). An API key is never in
 * it: a key given with the request goes to the secrets file under `replay.<replay_id>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { OnDivergence, Replay, ReplayBudget, ReplayCheck, ReplayEstimate, ReplayItem, ReplayOverrides } from '../../../shared/contract/replays.js';

export type StoredTarget =
  | { kind: 'endpoint'; base_url: string; model: string; api_key_secret: string | null; price: { input_per_mtok: number; output_per_mtok: number } | null }
  | { kind: 'checkpoint'; model_id: string; step: number; model: string };

export type Item = z.output<typeof ReplayItem>;

export interface ReplayState {
  replay_id: string;
  project_id: string;
  label: string | null;
  status: z.output<typeof Replay>['status'];
  reason: string | null;
  target: StoredTarget;
  /** The secret this replay made for its key (deleted when it ends). */
  own_secret: string | null;
  overrides: z.output<typeof ReplayOverrides>;
  budget: z.output<typeof ReplayBudget>;
  on_divergence: z.output<typeof OnDivergence>;
  check: z.output<typeof ReplayCheck> | null;
  /** How the turns were chosen (absent in replays stored before selections existed). */
  selected_by?: z.output<typeof Replay>['selected_by'];
  /** Scorer ids the report compares with. */
  scorers?: string[];
  estimate: z.output<typeof ReplayEstimate>;
  created_at: string;
  ended_at: string | null;
  items: Item[];
}

export const replaysDir = (dataDir: string): string => path.join(dataDir, 'replays');
const fileOf = (dataDir: string, id: string): string => path.join(replaysDir(dataDir), `${id}.json`);

export function saveState(dataDir: string, s: ReplayState): void {
  fs.mkdirSync(replaysDir(dataDir), { recursive: true, mode: 0o700 });
  const file = fileOf(dataDir, s.replay_id);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(s), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function loadState(dataDir: string, id: string): ReplayState | null {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
  try {
    return JSON.parse(fs.readFileSync(fileOf(dataDir, id), 'utf8')) as ReplayState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${fileOf(dataDir, id)} is not readable JSON (${(err as Error).message})`, { cause: err });
  }
}

/** Every stored replay (a file that does not parse is reported and left out). */
export function listStates(dataDir: string): ReplayState[] {
  let names: string[];
  try {
    names = fs.readdirSync(replaysDir(dataDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: ReplayState[] = [];
  for (const n of names) {
    try {
      const s = loadState(dataDir, n.slice(0, -5));
      if (s) out.push(s);
    } catch (err) {
      console.warn(`loupe: ${(err as Error).message}`);
    }
  }
  return out;
}

export function totalsOf(items: Item[]): z.output<typeof Replay>['totals'] {
  const costs = items.map((i) => i.cost_usd);
  return {
    items: items.length,
    done: items.filter((i) => i.status === 'done').length,
    failed: items.filter((i) => i.status === 'failed').length,
    diverged: items.filter((i) => i.diverged).length,
    pending: items.filter((i) => i.status === 'pending' || i.status === 'running').length,
    input_tokens: items.reduce((a, i) => a + i.input_tokens, 0),
    output_tokens: items.reduce((a, i) => a + i.output_tokens, 0),
    cost_usd: costs.every((c) => c === null) ? null : costs.reduce<number>((a, c) => a + (c ?? 0), 0),
  };
}

/** The replay as the contract answers it (no secrets, no overrides). */
export function replayOut(s: ReplayState): z.output<typeof Replay> {
  const t = s.target;
  return {
    replay_id: s.replay_id,
    project_id: s.project_id,
    label: s.label,
    selected_by: s.selected_by ?? { kind: 'trace_ids', dataset: null, cluster_id: null },
    scorers: s.scorers ?? [],
    status: s.status,
    reason: s.reason,
    target: t.kind === 'endpoint' ? { kind: 'endpoint', model: t.model, base_url: t.base_url, model_id: null, step: null } : { kind: 'checkpoint', model: t.model, base_url: null, model_id: t.model_id, step: t.step },
    budget: { max_tokens: s.budget.max_tokens ?? null, max_cost_usd: s.budget.max_cost_usd ?? null, concurrency: s.budget.concurrency, requests_per_minute: s.budget.requests_per_minute ?? null },
    estimate: s.estimate,
    created_at: s.created_at,
    ended_at: s.ended_at,
    items: s.items,
    totals: totalsOf(s.items),
  };
}
