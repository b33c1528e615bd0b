/**
 * Runs replays in the background (docs/replay.md "Bounds, cancel, resume"): `concurrency` turns at
 * once, model calls started no faster than `requests_per_minute`, and before each call the token and
 * cost budget checked against what was spent plus what calls in flight may still use (their prompt,
 * estimated at 4 characters a token, and their max_tokens): a call that could cross the budget is
 * not sent and the replay ends with the reason. Cancel aborts calls in flight. Each finished turn
 * is stored as its trace, then its state saved; a replay still running when the server stops
 * resumes at the next start with the turns not yet done.
 */
import type { ServiceContext } from '../context.js';
import { computeCosts } from '../ingest/costs.js';
import { errorMessage } from '../../../shared/errors.js';
import { listStates, saveState, type Item, type ReplayState, type StoredTarget } from './state.js';
import { readRecording } from './recording.js';
import { replayTurn } from './turn.js';
import { storeReplayTrace } from './trace.js';
import type { CallAnswer, CallRequest, ResolvedTarget } from './target.js';

class BudgetSpent extends Error {}

/** USD of a call's usage at the target's price (null: unknown price). */
export function priceOf(t: StoredTarget, input: number, output: number): number | null {
  if (t.kind === 'checkpoint') return 0;
  if (t.price) return (input * t.price.input_per_mtok + output * t.price.output_per_mtok) / 1e6;
  return computeCosts({ input_tokens: input, output_tokens: output, cache_read_input_tokens: null, cache_creation_input_tokens: null }, t.model, t.model, null).total_cost_usd;
}

const promptEstimate = (r: CallRequest): number => Math.ceil(JSON.stringify(r.messages).length / 4) + Math.ceil(JSON.stringify(r.tools).length / 4);

interface Running {
  state: ReplayState;
  abort: AbortController;
  done: Promise<void>;
  /** Set by cancel (as opposed to the server stopping, which leaves the replay to resume). */
  cancelled: boolean;
}

export class ReplayRunner {
  private readonly running = new Map<string, Running>();
  private stopped = false;

  constructor(private readonly ctx: ServiceContext) {}

  /** Replays left running by a stopped server continue (their turns in flight start again). */
  recover(): void {
    for (const s of listStates(this.ctx.dataDir)) {
      if (s.status !== 'running') continue;
      for (const i of s.items) if (i.status === 'running') i.status = 'pending';
      this.start(s);
    }
  }

  start(state: ReplayState): void {
    saveState(this.ctx.dataDir, state);
    const abort = new AbortController();
    const r: Running = { state, abort, cancelled: false, done: Promise.resolve() };
    this.running.set(state.replay_id, r);
    r.done = this.run(r).finally(() => this.running.delete(state.replay_id));
  }

  get(id: string): ReplayState | null {
    return this.running.get(id)?.state ?? null;
  }

  async cancel(id: string): Promise<ReplayState | null> {
    const r = this.running.get(id);
    if (!r) return null;
    r.cancelled = true;
    r.abort.abort();
    await r.done;
    return r.state;
  }

  /** Stops every replay without ending it (resumed at the next start). */
  async close(): Promise<void> {
    this.stopped = true;
    const all = [...this.running.values()];
    for (const r of all) r.abort.abort();
    await Promise.all(all.map((r) => r.done));
  }

  private resolve(t: StoredTarget): ResolvedTarget {
    if (t.kind === 'checkpoint') return t;
    const key = t.api_key_secret ? (this.ctx.secrets?.get(t.api_key_secret) ?? null) : null;
    if (t.api_key_secret && key === null) throw new Error(`the secret ${t.api_key_secret} holding the endpoint's key is gone (or encrypted by the desktop app); start the replay again with api_key`);
    return { kind: 'endpoint', base_url: t.base_url, model: t.model, api_key: key };
  }

  private async run(r: Running): Promise<void> {
    const s = r.state;
    const save = () => saveState(this.ctx.dataDir, s);
    let stopReason: string | null = null;
    let target: ResolvedTarget;
    try {
      target = this.resolve(s.target);
    } catch (err) {
      return this.end(r, 'failed', errorMessage(err));
    }
    // Spent so far (resumed replays count their finished turns) and reserved by calls in flight.
    let spentTokens = s.items.reduce((a, i) => a + i.input_tokens + i.output_tokens, 0);
    let spentCost = s.items.reduce((a, i) => a + (i.cost_usd ?? 0), 0);
    let reservedTokens = 0;
    let nextStart = 0;
    const b = s.budget;
    const gap = b.requests_per_minute ? 60_000 / b.requests_per_minute : 0;

    const beforeCall = async (req: CallRequest): Promise<number> => {
      if (gap) {
        const wait = nextStart - Date.now();
        nextStart = Math.max(Date.now(), nextStart) + gap;
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
      if (r.abort.signal.aborted) throw new BudgetSpent('cancelled');
      const need = promptEstimate(req) + (req.max_tokens ?? 0);
      if (b.max_tokens !== undefined && spentTokens + reservedTokens + need > b.max_tokens) {
        throw new BudgetSpent(`token budget: ${spentTokens} spent, ${reservedTokens} in flight, the next call may use ${need} of ${b.max_tokens}`);
      }
      if (b.max_cost_usd !== undefined) {
        const cost = priceOf(s.target, need, 0) ?? 0;
        if (spentCost + cost > b.max_cost_usd) throw new BudgetSpent(`cost budget: $${spentCost.toFixed(4)} spent, the next call may cost $${cost.toFixed(4)} of $${b.max_cost_usd}`);
      }
      reservedTokens += need;
      return need;
    };

    const one = async (item: Item): Promise<void> => {
      item.status = 'running';
      let reserved = 0;
      try {
        const rec = await readRecording(this.ctx, s.project_id, item.original_trace_id, r.abort.signal);
        if (!rec || rec.model_calls === 0) {
          Object.assign(item, { status: 'skipped', error: rec ? 'the turn has no model call to replay' : 'the trace is gone' });
          return;
        }
        let cost: number | null = 0;
        const result = await replayTurn(this.ctx, rec, {
          target,
          overrides: s.overrides,
          onDivergence: s.on_divergence,
          maxCalls: b.max_calls_per_turn,
          signal: r.abort.signal,
          beforeCall: async (req) => {
            reserved = await beforeCall(req);
          },
          afterCall: (a: CallAnswer) => {
            reservedTokens -= reserved;
            reserved = 0;
            const used = a.input_tokens + a.output_tokens;
            const c = priceOf(s.target, a.input_tokens, a.output_tokens);
            spentTokens += used;
            spentCost += c ?? 0;
            item.input_tokens += a.input_tokens;
            item.output_tokens += a.output_tokens;
            cost = cost === null || c === null ? null : cost + c;
          },
        });
        item.replay_trace_id = await storeReplayTrace(this.ctx, s.project_id, s.replay_id, rec, target, result);
        Object.assign(item, {
          status: result.error ? 'failed' : 'done',
          diverged: !!result.divergence,
          divergence: result.divergence,
          error: result.error,
          cost_usd: cost,
          duration_ms: result.calls.length ? Number((result.calls[result.calls.length - 1]!.endNs - result.calls[0]!.startNs) / 1_000_000n) : null,
        });
      } catch (err) {
        reservedTokens -= reserved;
        if (err instanceof BudgetSpent) {
          stopReason ??= err.message;
          Object.assign(item, { status: 'pending', input_tokens: 0, output_tokens: 0 });
          r.abort.abort();
        } else if (r.abort.signal.aborted) {
          Object.assign(item, { status: 'pending', input_tokens: 0, output_tokens: 0 });
        } else {
          Object.assign(item, { status: 'failed', error: errorMessage(err) });
        }
      } finally {
        save();
      }
    };

    const queue = s.items.filter((i) => i.status === 'pending');
    const worker = async () => {
      for (let item = queue.shift(); item && !r.abort.signal.aborted; item = queue.shift()) await one(item);
    };
    await Promise.all(Array.from({ length: Math.min(b.concurrency, queue.length) }, worker));

    if (r.cancelled) {
      for (const i of s.items) if (i.status === 'pending') i.status = 'cancelled';
      return this.end(r, 'cancelled', 'cancelled by the user');
    }
    const stoppedFor = stopReason as string | null; // set inside the workers (TypeScript cannot see it)
    if (stoppedFor) {
      for (const i of s.items) if (i.status === 'pending') i.status = 'skipped';
      return this.end(r, 'done', `stopped early: ${stoppedFor}`);
    }
    if (this.stopped) return save(); // the server stops: resumed at the next start
    const allFailed = s.items.length > 0 && s.items.every((i) => i.status === 'failed');
    return this.end(r, allFailed ? 'failed' : 'done', allFailed ? (s.items[0]!.error ?? 'every turn failed') : null);
  }

  private end(r: Running, status: ReplayState['status'], reason: string | null): void {
    const s = r.state;
    Object.assign(s, { status, reason, ended_at: new Date().toISOString() });
    if (s.own_secret) this.ctx.secrets?.delete(s.own_secret);
    s.own_secret = null;
    saveState(this.ctx.dataDir, s);
  }
}
