/**
 * The ClickHouse adapter's write path. ClickHouse has no transactions and no unique keys, so a write
 * is made idempotent and safe for many writers at once (several Loupe instances, importers and OTLP
 * receivers on one database) by construction instead:
 *
 *  1. Spans are inserted with a version (the write's stamp) into ReplacingMergeTree tables keyed by
 *     (project, trace, span): a re-imported span is a newer version of the same key, and readers that
 *     need exactly-once read with FINAL. Nothing is ever updated in place.
 *  2. After its insert, the writer reads back every trace it touched (all spans of it, from whatever
 *     writer) and recomputes that trace's summaries (summaries.ts), then each touched conversation's
 *     summary from its turns. Summary rows carry the stamp taken just before the read that produced
 *     them, and the newest version wins. Every writer reads after its own insert, so the writer whose
 *     read starts last has seen every span inserted so far: its rows, the newest, are complete.
 *
 * The cost of a write does not grow with the store (issue 19): every statement reads only the rows of
 * the batch's traces and conversations. Spans are read in the partitions (days) the traces are known
 * to occupy, and within them by primary key; traces and conversations are looked up by id in the
 * writer's own small-granule tables (trace_keys, conversation_keys: migration 0004; filled from the
 * summary inserts by materialized views since 0010, so a round writes each row once), never in the read
 * summaries, whose 8,192-row granules made every random id cost a granule of every part.
 *
 * Summaries are written in the background (issue 19: a 30 MB OTLP post is acknowledged once its
 * spans are stored, not after a dozen more statements). A write goes through two stages: the insert
 * (journal row, spans, payloads: the batch is stored and cannot be lost) and the summaries. The
 * caller of `write(batch, 'stored')` is answered after the first; `write(batch, 'summarized')` (the
 * port's writeSpans) and `settled()` wait for the second. One summary round runs at a time per writer,
 * and it takes every batch stored meanwhile (up to ROUND_SPANS), so a writer that stores faster than
 * it summarizes makes fewer, larger summary rounds; the insert stage waits while more than
 * BACKLOG_SPANS are stored but not summarized, so `settled()` stays a few seconds away. A trace's
 * "before" (trace_keys: its days, the conversations and agents it fed) is read when its round starts:
 * trace_keys change only when summaries are written, so it is what the summaries say now.
 *
 * A failure part-way (the server gone) leaves spans stored and summaries possibly stale. The writer
 * retries each stage while the server is unreachable (up to `retryForMs`), and every batch is recorded
 * in write_journal until its summaries are written: a batch left unfinished (retries exhausted, the
 * writer killed between answering and summarizing) is recomputed by this writer's next summary round,
 * or by `repair` when any writer opens the store. Concurrent batches of one process are coalesced into
 * one insert (a burst of small OTLP requests becomes one insert per table).
 */
import type { WriteResult } from '../ports.js';
import type { ClickHouse } from './connection.js';
import { PAYLOAD_COLUMNS, SPAN_COLUMNS, dayText, daysBetween, type EncodedSpans } from './encode.js';
import { pickRows, setVersion, type BinaryRows } from './row-binary.js';
import { OpenDocuments, reusableDocs } from './search-index.js';
import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../ports.js';
import { asError } from '../../../shared/errors.js';
import { summarizeConversation, summarizeTrace, type LightSpan, type Recount, type TurnContributionRow } from './summaries.js';
import { date, i64, ident, join, raw, sql, str, strs, u64, type Sql } from './sql.js';
import { ROLLUP_HEAD, ROLLUP_MID, ROLLUP_TAIL } from './rollups.js';
import { emptyDays, emptyUnitDays, recomputeDays, unitDays } from './rollup-days.js';
import { FINAL_SETTINGS } from './reads/scope.js';
import { DAY_ROW_COLUMNS, contributions, dayRowJson, dayRowOf, emptyDay, replaceable, replaced, type DayRow, type DayRowJson } from './project-days.js';
import { CONVERSATION_KEY_COLUMNS, contributionRow, LIGHT_COLUMNS, lightSpan, type ConversationKeyJson, type LightRowJson } from './rows.js';

let lastStamp = 0;
/**
 * Versions of rows: µs since the epoch, strictly increasing within a process. Clocks of several
 * machines writing one database are assumed synchronized (NTP) to well under the time between two
 * writes of one trace; see docs/clickhouse.md.
 */
export function nextStamp(): number {
  lastStamp = Math.max(lastStamp + 1, Date.now() * 1000);
  return lastStamp;
}

const bigintJson = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
/** JSONEachRow text of summary rows with their version (64-bit integers as quoted digits, which ClickHouse reads). */
export const jsonRows = (rows: object[], version: number, deleted = 0): string =>
  rows.map((r) => JSON.stringify({ ...r, version, deleted }, bigintJson)).join('\n');

type RecountRow = { trace_id: string; span_id: string; day: string } & Recount;

interface OldTrace {
  first_day: string;
  last_day: string;
  conversation_ids: string[];
  agent_names: string[];
  /** The trace has spans without a conversation: its own rollup unit has agents. */
  loose_spans: number;
}

/** A batch recorded in write_journal: what to recompute if its summaries were not all written. */
interface JournalEntry {
  project_id: string;
  batch_id: string;
  trace_ids: string[];
  days: string[];
  conversation_ids: string[];
  /**
   * When the batch was journaled ('YYYY-MM-DD hh:mm:ss'). Its done row carries the same time: the
   * table is partitioned by that day and FINAL does not replace a row across partitions, so a batch
   * marked done on another day (a repair the day after a crash) would stay unfinished for ever.
   */
  written?: string;
}

/** A trace row's days, at most 400 (encode.ts daysBetween). */
const rowDays = (from: string, to: string): string[] => daysBetween(from, to, 400);

/** `day IN (…)` over a set of partitions (days as Date literals). */
export const inDays = (days: Iterable<string>): Sql => {
  const list = [...new Set(days)].sort();
  return list.length ? sql`day IN (${join(list.map((d) => sql`${date(d)}`), ', ')})` : raw('0');
};

const inList = (column: 'trace_id' | 'conversation_id' | 'unit_id', ids: Iterable<string>): Sql =>
  sql`${ident(column)} IN (${join([...ids].map((x) => sql`${str(x)}`), ', ')})`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A writer's changes to a project's day rows (project_days), recorded in day_writes: a row when they start (before
 * any read they depend on) and one when they end. `deltas`: the day rows may be updated from the traces'
 * contributions (trace_days) instead of recomputed from the day's spans. See keepDays.
 */
export interface DayWindow {
  projectId: string;
  id: string;
  stamp: number;
  days: Set<string>;
  deltas: boolean;
  /** keepDays calls made in it: a retry (the server failed part-way) recomputes, as its trace_days may be half written. */
  uses: number;
}

/** How far back day_writes is read: a window started earlier and never ended (its writer died) is ignored after this. */
const WINDOW_LOOKBACK_US = 60 * 60 * 1_000_000;

/** One round's contributions of its traces to their days (trace_days), and what keepDays needs to use them. */
export interface TraceDays {
  /** The summaries' version (stamped before the read-back they come from). */
  version: number;
  /** Trace → day → its contribution now (a trace without spans: an empty map). */
  now: Map<string, Map<string, DayRow>>;
  /** Every day each trace has or had spans in. */
  daysOf: Map<string, string[]>;
  /** Traces summarized before this round (trace_keys): the only ones that can have a contribution stored. */
  known: Set<string>;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A stored batch waiting for its summaries: its journal entries (one per project) and size. */
interface Stored {
  seq: number;
  entries: JournalEntry[];
  spans: number;
}

/** Spans of stored batches one summary round takes at most (its read-back holds their light rows). */
const ROUND_SPANS = 65_536;
/** The insert stage waits while this many spans are stored and not yet summarized. */
const BACKLOG_SPANS = 65_536;

/** What a write waits for: its spans stored (summaries follow), or its summaries written too. */
export type WriteWait = 'stored' | 'summarized';

export class Writer {
  private queue: { batch: EncodedSpans; wait: WriteWait; resolve: (r: WriteResult) => void; reject: (e: unknown) => void }[] = [];
  private running = false;
  /** Resource ids this process has stored (a resource is inserted once; ReplacingMergeTree absorbs repeats anyway). */
  private resources = new Set<string>();
  /** Documents of the term index this writer can add to (search-index.ts): a batch writes only what they lack. */
  readonly documents = new OpenDocuments();
  /** Batches of this writer whose summaries failed part-way: recomputed by the next summary round. */
  private unfinished: JournalEntry[] = [];
  /** Why the last summary round failed, while batches are left unfinished (settled() rejects with it). */
  private summaryFailure: Error | null = null;
  /** Stored batches whose summary round has not started, oldest first; and the round's own. */
  private backlog: Stored[] = [];
  private inRound: Stored[] = [];
  /** Batches numbered as stored; every batch up to `summarizedSeq` has had its summary round. */
  private storedSeq = 0;
  private summarizedSeq = 0;
  private waiters: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  /** Resolved at the end of every summary round (the insert stage waits on it for room). */
  private roundEnded: { promise: Promise<void>; resolve: () => void } = deferred();
  /**
   * Summary rounds, repairs and deletes run one after another through this chain: two recomputations
   * of one batch racing each other were seen leaving a conversation's rollup row empty (CI, stop 25).
   */
  private lane: Promise<unknown> = Promise.resolve();
  private summarizing = false;
  /** How long a batch is retried while the server is unreachable before its write fails. */
  retryForMs = Number(process.env.LOUPE_CLICKHOUSE_RETRY_MS ?? 60_000);

  constructor(private readonly ch: ClickHouse) {}

  /** Stores a batch; answers once it is stored (`wait` 'stored') or once its summaries are written too. */
  write(batch: EncodedSpans, wait: WriteWait = 'summarized'): Promise<WriteResult> {
    if (!batch.keys.length) return Promise.resolve({ inserted: 0, replaced: 0, touched: [] });
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, wait, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  /**
   * Resolves when every batch stored so far has its summaries written; rejects with the failure when
   * a summary round gave up (those batches are retried by the next round, or repaired at open).
   */
  settled(): Promise<void> {
    return this.settledAt(this.storedSeq);
  }

  /** Batches whose spans are stored and whose summaries are not written yet (health). */
  pendingSummaries(): number {
    return this.storedSeq - this.summarizedSeq + this.unfinished.length;
  }

  /** Runs `task` alone: no summary round, repair or other task of this writer runs beside it. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lane.then(task);
    this.lane = run.catch(() => undefined);
    return run;
  }

  private settledAt(seq: number): Promise<void> {
    if (seq <= this.summarizedSeq) return this.summaryFailure && this.unfinished.length ? Promise.reject(this.summaryFailure) : Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length) {
      // Room first: a writer storing faster than it summarizes waits here, so summaries stay close.
      while (this.backlog.reduce((n, b) => n + b.spans, 0) >= BACKLOG_SPANS) await this.roundEnded.promise;
      const jobs = this.queue.splice(0, this.queue.length);
      const merged: Merged = { spans: [], payloads: [], resources: [], keys: [], search: [] };
      for (const j of jobs) {
        merged.spans.push(j.batch.spans);
        merged.payloads.push(j.batch.payloads);
        merged.resources.push(...j.batch.resources);
        for (const k of j.batch.keys) merged.keys.push(k);
        merged.search.push(j.batch.search);
      }
      try {
        const { result, entries, spans } = await this.store(merged);
        const seq = ++this.storedSeq;
        this.backlog.push({ seq, entries, spans });
        this.startRounds();
        // Each caller learns about its own spans: counts are split by key, touched traces by batch.
        for (const j of jobs) {
          const own = splitResult(result, j.batch);
          if (j.wait === 'stored') j.resolve(own);
          else this.settledAt(seq).then(() => j.resolve(own), j.reject);
        }
      } catch (e) {
        for (const j of jobs) j.reject(e);
      }
    }
    this.running = false;
  }

  /**
   * Runs a step of a write again while the server does not answer (a restart, a network cut), with
   * growing pauses, for up to `retryForMs`. Every step is idempotent: rows are versioned.
   */
  private async retrying<T>(step: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryForMs;
    for (let pause = 250; ; pause = Math.min(pause * 2, 4000)) {
      try {
        return await step();
      } catch (e) {
        if (!(e instanceof StoreUnavailableError) || Date.now() + pause > deadline) throw e;
        await sleep(pause);
      }
    }
  }

  /** Traces of this writer's batches stored and not summarized yet, with their batches' days (by project, trace). */
  private storedNotSummarized(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const e of [...this.inRound, ...this.backlog].flatMap((b) => b.entries).concat(this.unfinished)) {
      for (const t of e.trace_ids) {
        const k = `${e.project_id}\u0000${t}`;
        let days = out.get(k);
        if (!days) out.set(k, (days = new Set()));
        e.days.forEach((d) => days.add(d));
      }
    }
    return out;
  }

  /** The insert stage: journal row, spans, payloads. Returns the counts and the batch's journal entries. */
  private async store(all: Merged): Promise<{ result: WriteResult & { replacedKeys: Set<string> }; entries: JournalEntry[]; spans: number }> {
    const b = lastOfEachSpan(all);
    // Traces per project, with the days the batch puts their spans in.
    const projects = new Map<string, Map<string, Set<string>>>();
    for (const [p, t, , day] of b.keys) {
      let traces = projects.get(p);
      if (!traces) projects.set(p, (traces = new Map()));
      let days = traces.get(t);
      if (!days) traces.set(t, (days = new Set()));
      days.add(day);
    }
    const old = new Map<string, Map<string, OldTrace>>();
    const existing = new Set<string>();
    const journal: JournalEntry[] = [];
    // Traces this writer stored whose summaries (so trace_keys) are still to come hold spans too.
    const pending = this.storedNotSummarized();
    await this.retrying(async () => {
      for (const [p, traces] of projects) {
        const o = await this.oldTraces(p, [...traces.keys()]);
        old.set(p, o);
        // Only traces already summarized, or stored by this writer, can hold stored spans of this batch (for the inserted/replaced report).
        const known = [...traces.keys()].filter((t) => o.has(t) || pending.has(`${p}\u0000${t}`));
        if (known.length) {
          const days = known.flatMap((t) => {
            const before = o.get(t);
            return [...traces.get(t)!, ...(before ? rowDays(before.first_day, before.last_day) : []), ...(pending.get(`${p}\u0000${t}`) ?? [])];
          });
          const rows = await this.ch.rows<{ trace_id: string; span_id: string }>(
            sql`SELECT trace_id, span_id FROM spans FINAL WHERE project_id = ${str(p)} AND ${inDays(days)} AND ${inList('trace_id', known)} AND deleted = 0${FINAL_SETTINGS}`,
          );
          for (const r of rows) existing.add(`${p}\u0000${r.trace_id}\u0000${r.span_id}`);
        }
      }
    });
    for (const [p, traces] of projects) {
      const o = old.get(p)!;
      const days = new Set<string>();
      const conversations = new Set<string>();
      for (const [t, ds] of traces) {
        ds.forEach((d) => days.add(d));
        const before = o.get(t);
        if (before) {
          rowDays(before.first_day, before.last_day).forEach((d) => days.add(d));
          before.conversation_ids.forEach((c) => conversations.add(c));
        }
      }
      journal.push({ project_id: p, batch_id: randomUUID(), trace_ids: [...traces.keys()], days: [...days], conversation_ids: [...conversations] });
    }

    const version = nextStamp();
    for (const rows of [...b.spans, ...b.payloads]) setVersion(rows, version);
    const fresh = b.resources.filter((r) => !this.resources.has(`${r.project_id}\u0000${r.resource_id}`));
    let index: { lines: string[]; commit: () => void } | null = null;
    await this.retrying(async () => {
      index ??= this.documents.lines(b.search, await reusableDocs(this.ch, this.documents.wanted(b.search)));
      await this.journal(journal, 0);
      // A known replacement makes a second version of a span: its days read through FINAL from now on
      // (marked before the insert, so no read sees both versions without merging them).
      if (existing.size) await this.markDirty(b.keys.filter(([p, t, s]) => existing.has(`${p}\u0000${t}\u0000${s}`)).map((k) => k[3]));
      await Promise.all([
        this.ch.insertRowBinary('spans', SPAN_COLUMNS, b.spans),
        this.ch.insertRowBinary('span_payloads', PAYLOAD_COLUMNS, b.payloads),
        this.ch.insertJsonEachRow('search_input', index.lines.join('\n')),
        fresh.length ? this.ch.insertJsonEachRow('resources', fresh.map((r) => JSON.stringify(r)).join('\n')) : null,
      ]);
    });
    for (const r of fresh) this.resources.add(`${r.project_id}\u0000${r.resource_id}`);
    index!.commit();

    let inserted = 0;
    let replaced = 0;
    const replacedKeys = new Set<string>();
    const seen = new Set<string>();
    for (const [p, t, s] of b.keys) {
      const k = `${p}\u0000${t}\u0000${s}`;
      if (seen.has(k)) continue; // the same span twice in one batch is one span
      seen.add(k);
      if (existing.has(k)) {
        replaced++;
        replacedKeys.add(k);
      } else inserted++;
    }
    const touched = [...projects].flatMap(([p, traces]) => [...traces.keys()].map((t) => ({ project_id: p, trace_id: t })));
    return { result: { inserted, replaced, touched, replacedKeys }, entries: journal, spans: b.keys.length };
  }

  /** Starts summary rounds (in the lane) unless they run already; they run until the backlog is empty. */
  private startRounds(): void {
    if (this.summarizing) return;
    this.summarizing = true;
    void this.exclusive(async () => {
      try {
        while (this.backlog.length) await this.round();
      } finally {
        this.summarizing = false;
      }
    });
  }

  /**
   * One summary round: the batches left unfinished by an earlier round, then every stored batch up to
   * ROUND_SPANS, per project in one recomputation; then their journal rows marked done.
   */
  private async round(): Promise<void> {
    let spans = 0;
    while (this.backlog.length && (spans === 0 || spans + this.backlog[0]!.spans <= ROUND_SPANS)) {
      const b = this.backlog.shift()!;
      spans += b.spans;
      this.inRound.push(b);
    }
    const seq = this.inRound[this.inRound.length - 1]!.seq;
    const entries = this.inRound.flatMap((b) => b.entries);
    this.roundEnded.resolve();
    this.roundEnded = deferred();
    try {
      await this.finishUnfinished();
      const byProject = new Map<string, JournalEntry[]>();
      for (const e of entries) byProject.set(e.project_id, [...(byProject.get(e.project_id) ?? []), e]);
      for (const [p, list] of byProject) {
        const traces = new Map<string, Set<string>>();
        for (const e of list) {
          for (const t of e.trace_ids) {
            let days = traces.get(t);
            if (!days) traces.set(t, (days = new Set()));
            e.days.forEach((d) => days.add(d));
          }
        }
        try {
          // The day rows' window opens before any read the round's day-row changes depend on.
          const window = await this.retrying(() => this.openWindow(p, list.flatMap((e) => e.days), true));
          // What the summaries say before this round, read once: a retry after a part-way failure
          // must not see trace_keys this round already rewrote.
          const old = await this.retrying(() => this.oldTraces(p, [...traces.keys()]));
          await this.retrying(async () => {
            await this.summarize(p, traces, old, [], window);
            await this.journal(list, 1);
          });
          await this.retrying(() => this.closeWindow(window));
        } catch (e) {
          this.unfinished.push(...list);
          throw e;
        } finally {
          entries.splice(0, entries.length, ...entries.filter((x) => !list.includes(x)));
        }
      }
      this.summaryFailure = null;
    } catch (e) {
      // Given up (the server gone longer than the retries): this round's batches not yet handed to
      // `unfinished` and every stored batch waiting go there, and their waiters learn why.
      this.unfinished.push(...entries, ...this.backlog.flatMap((b) => b.entries));
      this.backlog = [];
      this.summaryFailure = asError(e);
      this.inRound = [];
      this.finishRound(this.storedSeq, this.summaryFailure);
      return;
    }
    this.inRound = [];
    this.finishRound(seq, null);
  }

  /** Every batch up to `seq` had its round: its waiters are answered. */
  private finishRound(seq: number, failure: Error | null): void {
    this.summarizedSeq = Math.max(this.summarizedSeq, seq);
    const due = this.waiters.filter((w) => w.seq <= this.summarizedSeq);
    this.waiters = this.waiters.filter((w) => w.seq > this.summarizedSeq);
    for (const w of due) {
      if (failure) w.reject(failure);
      else w.resolve();
    }
    this.roundEnded.resolve();
    this.roundEnded = deferred();
  }

  /** Records batches as started (done = 0) or with every summary written (done = 1). */
  private async journal(entries: JournalEntry[], done: 0 | 1): Promise<void> {
    const version = nextStamp();
    const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
    if (!done) for (const e of entries) e.written ??= now; // a retry keeps the first attempt's day
    await this.ch.insertJsonEachRow(
      'write_journal',
      entries.map((e) => JSON.stringify(done ? { project_id: e.project_id, batch_id: e.batch_id, written: e.written ?? now, done, version } : { ...e, done, version })).join('\n'),
    );
  }

  /** Recomputes the batches of this writer whose summaries failed part-way (the server came back). */
  private async finishUnfinished(): Promise<void> {
    while (this.unfinished.length) {
      await this.retrying(() => this.redo(this.unfinished[0]!));
      this.unfinished.shift();
    }
    this.summaryFailure = null;
  }

  /** Recomputes one journal entry's traces and conversations from the stored spans, then marks it done. */
  private async redo(e: JournalEntry): Promise<void> {
    const window = await this.openWindow(e.project_id, e.days, false);
    const old = await this.oldTraces(e.project_id, e.trace_ids);
    // The conversations the traces fed before the batch (the journal's list) are recomputed too.
    for (const t of e.trace_ids) {
      const o = old.get(t);
      if (o) old.set(t, { ...o, conversation_ids: [...new Set([...o.conversation_ids, ...e.conversation_ids])] });
    }
    const extra = e.trace_ids.some((t) => old.has(t)) ? [] : e.conversation_ids;
    await this.summarize(e.project_id, new Map(e.trace_ids.map((t) => [t, new Set(e.days)])), old, extra, window);
    await this.journal([e], 1);
    await this.closeWindow(window);
  }

  /**
   * Records that this writer starts changing the project's rows of `days` (day_writes, phase 0), stamped before
   * the insert: a writer whose own window overlaps it sees it when it checks, and recomputes instead.
   */
  async openWindow(projectId: string, days: Iterable<string>, deltas: boolean): Promise<DayWindow> {
    const w: DayWindow = { projectId, id: randomUUID(), stamp: nextStamp(), days: new Set(days), deltas, uses: 0 };
    await this.dayWrites(w, 0, w.stamp);
    return w;
  }

  /** Records that the window's changes are all stored (phase 1, stamped after them). */
  async closeWindow(w: DayWindow): Promise<void> {
    await this.dayWrites(w, 1, nextStamp());
  }

  private async dayWrites(w: DayWindow, phase: 0 | 1, stamp: number): Promise<void> {
    if (!w.days.size) return;
    await this.ch.insertJsonEachRow('day_writes', [...w.days].map((day) => JSON.stringify({ project_id: w.projectId, day, writer: w.id, stamp, phase })).join('\n'));
  }

  /**
   * Days of `w` that another writer's window overlapped: one that ended after `w` started, or has not ended
   * (within WINDOW_LOOKBACK_US). Read after `w`'s own day rows are stored, so of two overlapping windows at least
   * one sees the other, and the one that does recomputes after both wrote.
   */
  private async overlapped(w: DayWindow, days: string[]): Promise<Set<string>> {
    const rows = await this.ch.rows<{ day: string; writer: string; phase: number; stamp: string }>(
      sql`SELECT day, writer, phase, stamp FROM day_writes WHERE project_id = ${str(w.projectId)} AND ${inDays(days)}
          AND stamp >= ${u64(Math.max(0, w.stamp - WINDOW_LOOKBACK_US))} AND writer != ${str(w.id)}`,
    );
    const ends = new Map<string, number>();
    const seen = new Set<string>();
    for (const r of rows) {
      const k = `${dayText(r.day)}\u0000${r.writer}`;
      seen.add(k);
      if (Number(r.phase) === 1) ends.set(k, Number(r.stamp));
    }
    const out = new Set<string>();
    for (const k of seen) {
      const end = ends.get(k);
      if (end === undefined || end > w.stamp) out.add(k.slice(0, k.indexOf('\u0000')));
    }
    return out;
  }

  /**
   * Batches of any writer left unfinished for `olderThanMs` (a writer killed, or its server gone for
   * longer than its retries): their summaries are recomputed. Runs when a store is opened; safe to run
   * beside live writers (a recomputation is one more writer of the same rows). Also drops journal days
   * older than two days in which every batch is done. Returns the number of batches repaired.
   */
  repair(olderThanMs = 60_000): Promise<number> {
    // In the lane: the store's own repair at open (a timer) and one asked for by hand, or a summary
    // round, would otherwise redo the same batch side by side.
    return this.exclusive(() => this.repairNow(olderThanMs));
  }

  private async repairNow(olderThanMs: number): Promise<number> {
    // `written` has whole seconds: `<=` so that repair(0) also takes a batch answered this very second.
    // This writer's own batches waiting for their round are not left unfinished: the round does them.
    const mine = new Set(this.backlog.flatMap((b) => b.entries.map((e) => e.batch_id)));
    const rows = (
      await this.ch.rows<JournalEntry & { written_text: string }>(
        sql`SELECT project_id, batch_id, trace_ids, days, conversation_ids, toString(written) AS written_text FROM write_journal FINAL
          WHERE done = 0 AND written <= now() - ${u64(Math.floor(olderThanMs / 1000))}${FINAL_SETTINGS}`,
      )
    ).filter((r) => !mine.has(r.batch_id));
    for (const { written_text, ...r } of rows) await this.redo({ ...r, written: written_text });
    const old = await this.ch.rows<{ d: string }>(
      raw('SELECT toString(toDate(written)) AS d FROM write_journal FINAL GROUP BY d HAVING min(done) = 1 AND toDate(d) < today() - 1 SETTINGS optimize_move_to_prewhere = 0'),
    );
    for (const r of old) await this.ch.command(sql`ALTER TABLE write_journal DROP PARTITION ${date(r.d)}`);
    return rows.length;
  }

  /** Current keys of these traces (FINAL): where their spans are, which conversations and agents they fed. */
  private async oldTraces(projectId: string, traceIds: string[]): Promise<Map<string, OldTrace>> {
    const rows = await this.ch.rows<OldTrace & { trace_id: string }>(
      sql`SELECT trace_id, first_day, last_day, conversation_ids, agent_names, loose_spans FROM trace_keys FINAL
          WHERE project_id = ${str(projectId)} AND ${inList('trace_id', traceIds)} AND deleted = 0${FINAL_SETTINGS}`,
    );
    return new Map(rows.map((r) => [r.trace_id, r]));
  }

  /**
   * Recomputes the summaries of `traces` (of one project) from their stored spans, then the
   * summaries of every conversation they feed or fed (and `alsoConversations`), then the rollups.
   */
  async summarize(projectId: string, traces: Map<string, Set<string>>, old: Map<string, OldTrace>, alsoConversations: string[] = [], window: DayWindow | null = null): Promise<void> {
    const ids = [...traces.keys()];
    const daysOf = new Map<string, string[]>();
    for (const t of ids) {
      const o = old.get(t);
      daysOf.set(t, [...new Set([...traces.get(t)!, ...(o ? rowDays(o.first_day, o.last_day) : [])])]);
    }
    const version = nextStamp();
    // Every stored version, merged here: the newest of each span wins (as FINAL would pick), and a
    // span found in more than one version marks its day for merging reads (two writers stored it).
    const rows = await this.ch.rows<LightRowJson & { version: string; deleted: number }>(
      sql`SELECT ${LIGHT_COLUMNS}, version, deleted FROM spans WHERE project_id = ${str(projectId)} AND ${inDays([...daysOf.values()].flat())}
          AND ${inList('trace_id', ids)}`,
    );
    const newest = new Map<string, LightRowJson & { version: string; deleted: number }>();
    const twice = new Set<string>();
    for (const r of rows) {
      const k = `${r.trace_id}/${r.span_id}`;
      const had = newest.get(k);
      if (had) twice.add(r.day).add(had.day);
      if (!had || BigInt(r.version) > BigInt(had.version)) newest.set(k, r);
    }
    const stale = staleOnOtherDays(rows, newest);
    const dirty = this.markDirty([...twice]);
    if (stale.length) {
      await dirty;
      const lines = stale.map((r) => JSON.stringify({ day: r.day, project_id: projectId, trace_id: r.trace_id, span_id: r.span_id, version: (BigInt(r.version) + 1n).toString(), deleted: 1 })).join('\n');
      for (const t of ['spans', 'span_payloads']) await this.ch.insertJsonEachRow(t, lines);
    }
    const byTrace = new Map<string, LightSpan[]>();
    for (const r of newest.values()) {
      if (r.deleted) continue;
      const s = lightSpan(r);
      const list = byTrace.get(s.trace_id);
      if (list) list.push(s);
      else byTrace.set(s.trace_id, [s]);
    }
    const live = { traces: [] as object[], turns: [] as object[], agents: [] as object[], rows: [] as object[] };
    const gone = { traces: [] as object[], turns: [] as object[], agents: [] as object[], rows: [] as object[] };
    const recount: RecountRow[] = [];
    const conversations = new Set<string>(alsoConversations);
    /** Traces whose conversation-less rollup unit is recomputed, with their days; and those left without one. */
    const looseUnits = new Map<string, string[]>();
    const looseGone: string[] = [];
    const traceDays: TraceDays = { version, now: new Map(), daysOf, known: new Set(ids.filter((t) => old.has(t))) };
    for (const t of ids) {
      const spans = byTrace.get(t) ?? [];
      const sum = summarizeTrace(projectId, t, spans);
      // Its contribution to each day row, with the credit and counting bits the recount below stores.
      traceDays.now.set(t, contributions(spans.map((s) => {
        const r = sum?.recount.get(s.span_id);
        return r ? { ...s, counted: r.bits, agent_name: r.agent_name } : s;
      })));
      const before = old.get(t);
      const convNow = new Set(sum?.trace.conversation_ids ?? []);
      const agentsNow = new Set(sum?.trace.agent_names ?? []);
      const loose = spans.some((s) => s.conversation_id == null);
      if (loose) looseUnits.set(t, daysOf.get(t)!);
      else if (before) looseGone.push(t); // a known trace may have had a conversation-less unit: an empty row replaces it
      for (const c of before?.conversation_ids ?? []) {
        conversations.add(c);
        if (!convNow.has(c)) {
          gone.turns.push({ ...emptyTurn, project_id: projectId, conversation_id: c, trace_id: t, first_day: before!.first_day, last_day: before!.last_day });
        }
      }
      for (const a of before?.agent_names ?? []) {
        if (!agentsNow.has(a)) gone.agents.push({ ...emptyAgent, project_id: projectId, trace_id: t, agent_name: a });
      }
      // A trace listed as its own conversation-less row loses that row once a span carries a conversation (or it has no span left).
      if (before && !before.conversation_ids.length && !sum?.traceRow) gone.rows.push({ ...emptyConversation, project_id: projectId, conversation_id: t, kind: 'trace' });
      if (!sum) {
        if (before) {
          const key = { project_id: projectId, trace_id: t, first_day: before.first_day, last_day: before.last_day };
          gone.traces.push({ ...emptyTrace, ...key });
        }
        continue;
      }
      const { first_day, last_day } = sum.trace;
      // The look-ups (trace_keys, conversation_keys) are filled from these rows by the server (migration 0010).
      live.traces.push({ ...sum.trace, loose_spans: loose ? 1 : 0 });
      for (const turn of sum.turns) live.turns.push({ ...turn, first_day, last_day });
      live.agents.push(...sum.agents);
      if (sum.traceRow) live.rows.push(sum.traceRow);
      for (const c of convNow) conversations.add(c);
      for (const s of spans) {
        const r = sum.recount.get(s.span_id);
        if (r) recount.push({ trace_id: t, span_id: s.span_id, day: s.day, ...r });
      }
    }
    const both = (a: object[], b: object[]) => [jsonRows(a, version), jsonRows(b, version, 1)].filter(Boolean).join('\n');
    await Promise.all([
      this.ch.insertJsonEachRow('trace_summaries', both(live.traces, gone.traces)),
      this.ch.insertJsonEachRow('conversation_turns', both(live.turns, gone.turns)),
      this.ch.insertJsonEachRow('agent_trace_stats', both(live.agents, gone.agents)),
      recount.length ? this.recount(projectId, recount, version) : null,
      dirty,
    ]);
    // The conversation-less traces' rows go with the conversations' rows (one statement); alone when no conversation is touched.
    const traceRows = both(live.rows, gone.rows);
    const conversationsAndRollups = async () => {
      let convTraces = new Map<string, string[]>();
      if (conversations.size) convTraces = await this.summarizeConversations(projectId, [...conversations], traceRows);
      else await this.ch.insertJsonEachRow('conversation_summaries', traceRows);
      await this.rollup(projectId, looseUnits, [...conversations], convTraces, looseGone, looseGone.flatMap((t) => daysOf.get(t) ?? []));
    };
    // The kept day rows of every day the traces have spans in, after the recount (their credit and counting bits).
    // Both settle before a failure is reported: a retry of this summary must not run beside a day-row update of
    // this attempt still in flight (one landing after the retry's recompute would replace it with a stale sum).
    const settled = await Promise.allSettled([conversationsAndRollups(), this.keepDays(projectId, [...daysOf.values()].flat(), window, traceDays)]);
    for (const r of settled) if (r.status === 'rejected') throw r.reason;
  }

  /**
   * Keeps the project's day rows of `days` (project-days.ts, migrations 0011 and 0014) after the writes of a round or
   * a delete, and stores the round's traces' contributions (`traces`: trace_days).
   *
   * A day row is updated from the contributions when it can be: the stored row (FINAL) minus the old contributions of
   * the traces this round re-summarized, plus their new ones — reading a row per day and per re-summarized trace, not
   * the day's spans. That needs the stored row to be the sum of the stored contributions, which holds while every
   * writer's changes to the day are applied one after another: each is bracketed by a window (day_writes), and a
   * writer whose window another overlapped (checked after its rows are stored) recomputes the day from its spans,
   * stamped after both. A day is also recomputed when a change cannot be undone by arithmetic (`replaceable`), when
   * the window was not opened for deltas (repairs, deletes) or this is a retry within it, and when no window is given.
   *
   * The recompute: the sum of the day's current contributions (trace_days FINAL, not its spans, which also hold
   * batches stored and not summarized yet), with a version stamped after this writer's inserts into them and before
   * the read — the writer whose stamp is newest read after every insert whose recompute is done. A day without
   * contributions gets a row of zeros.
   */
  async keepDays(projectId: string, days: Iterable<string>, window: DayWindow | null = null, traces: TraceDays | null = null): Promise<void> {
    const list = [...new Set(days)].sort();
    if (!list.length) return;
    const recompute = new Set(list);
    const use = window ? ++window.uses : 0;
    if (traces) {
      const known = [...traces.known];
      const knownDays = known.flatMap((t) => traces.daysOf.get(t) ?? []);
      const deltas = window !== null && window.deltas && use === 1;
      const [oldRows, baseRows] = await Promise.all([
        known.length
          ? this.ch.rows<DayRowJson & { trace_id: string }>(
              sql`SELECT trace_id, ${raw(DAY_ROW_COLUMNS)} FROM trace_days FINAL WHERE project_id = ${str(projectId)} AND ${inDays(knownDays)}
                  AND ${inList('trace_id', known)}${FINAL_SETTINGS}`,
            )
          : [],
        deltas ? this.ch.rows<DayRowJson>(sql`SELECT ${raw(DAY_ROW_COLUMNS)} FROM project_days FINAL WHERE project_id = ${str(projectId)} AND ${inDays(list)}${FINAL_SETTINGS}`) : [],
      ]);
      const old = new Map<string, DayRow>(oldRows.map((r) => [`${dayText(r.day)}\u0000${r.trace_id}`, dayRowOf(r)]));
      // The contributions now, and an empty one where a trace had one and has none left.
      const lines: string[] = [];
      const changes = new Map<string, { old: DayRow | undefined; now: DayRow | undefined }[]>();
      for (const [t, byDay] of traces.now) {
        for (const day of new Set([...byDay.keys(), ...(traces.daysOf.get(t) ?? [])])) {
          const now = byDay.get(day);
          const before = old.get(`${day}\u0000${t}`);
          if (!now && !before) continue;
          lines.push(dayRowJson(projectId, day, traces.version, now ?? emptyDay(), t));
          let list = changes.get(day);
          if (!list) changes.set(day, (list = []));
          list.push({ old: before, now });
        }
      }
      await this.ch.insertJsonEachRow('trace_days', lines.join('\n'));
      if (deltas) {
        const base = new Map(baseRows.map((r) => [dayText(r.day), dayRowOf(r)]));
        const updated: string[] = [];
        const version = nextStamp();
        for (const day of list) {
          if (!window.days.has(day)) continue;
          const c = changes.get(day) ?? [];
          if (!c.every((x) => !x.old || replaceable(x.old, x.now))) continue;
          const row = replaced(base.get(day) ?? emptyDay(), c);
          if (!row) continue;
          updated.push(dayRowJson(projectId, day, version, row));
          recompute.delete(day);
        }
        // A later attempt in this window (a retry) recomputes: this one's base may be older than its rows.
        if (window.uses !== use) for (const day of list) recompute.add(day);
        else if (updated.length) {
          await this.ch.insertJsonEachRow('project_days', updated.join('\n'));
          for (const day of await this.overlapped(window, list.filter((d) => !recompute.has(d)))) recompute.add(day);
        }
        this.dayStats.deltas += list.length - recompute.size;
      }
    }
    if (!recompute.size) return;
    this.dayStats.recomputed += recompute.size;
    // The sum of the days' current contributions — not of their spans: a day's spans include those of batches
    // stored and not summarized yet (by any writer), whose contributions their own rounds add later.
    const again = [...recompute].sort();
    const version = nextStamp();
    const rows = await this.ch.rows<DayRowJson>(
      sql`SELECT ${raw(DAY_ROW_COLUMNS)} FROM trace_days FINAL WHERE project_id = ${str(projectId)} AND ${inDays(again)} AND span_count > 0${FINAL_SETTINGS}`,
    );
    const byDay = new Map<string, { old: undefined; now: DayRow }[]>(again.map((d) => [d, []]));
    for (const r of rows) byDay.get(dayText(r.day))?.push({ old: undefined, now: dayRowOf(r) });
    await this.ch.insertJsonEachRow('project_days', again.map((day) => dayRowJson(projectId, day, version, replaced(emptyDay(), byDay.get(day)!) ?? emptyDay())).join('\n'));
  }

  /** Day rows updated from contributions and recomputed from them, since the writer started (tests read them). */
  readonly dayStats = { deltas: 0, recomputed: 0 };

  /**
   * Recomputes the span rollups (rollups.ts) of the conversation-less spans of the traces `looseUnits`
   * names and of the conversations `conversationIds` (over `convTraces`: every trace that ever held
   * one, turn rows of any version, with their days) from their current spans, with a version stamped
   * before the reads: as for summaries, the writer whose stamp is newest read after every other
   * writer's insert. Spans are read only in the days of those traces. A unit left without spans gets
   * an empty row at an earlier stamp (so a recomputed row wins): every touched conversation, and the
   * traces `looseGone` names (known traces that have no conversation-less span now) — most traces have
   * no conversation-less span, and an empty row kept for each would be read by every group-by.
   */
  async rollup(
    projectId: string, looseUnits: Map<string, string[]>, conversationIds: string[], convTraces: Map<string, string[]>, looseGone: string[], goneDays: string[] = [],
  ): Promise<void> {
    if (!looseUnits.size && !conversationIds.length && !looseGone.length) return;
    const emptyAt = nextStamp();
    const version = nextStamp();
    const units: Sql[] = [];
    if (looseUnits.size) units.push(sql`(isNull(conversation_id) AND ${inList('trace_id', looseUnits.keys())})`);
    if (convTraces.size) units.push(sql`(${inList('conversation_id', conversationIds)} AND ${inList('trace_id', convTraces.keys())})`);
    const days = [...looseUnits.values(), ...convTraces.values()].flat();
    const traces = new Set([...looseUnits.keys(), ...convTraces.keys()]);
    const empty = (kind: string, ids: string[]) => ids.map((id) => JSON.stringify({ project_id: projectId, unit_kind: kind, unit_id: id, version: emptyAt }));
    const spans = sql`project_id = ${str(projectId)} AND ${inDays(days)} AND ${inList('trace_id', traces)} AND (${join(units, ' OR ')})`;
    // The same units split by day (unit_days, migration 0015): every day any of them may have had rows in.
    const allDays = [...new Set([...days, ...goneDays])].sort();
    await Promise.all([
      this.ch.insertJsonEachRow('span_rollups', [...empty('conversation', conversationIds), ...empty('trace', looseGone)].join('\n')),
      units.length ? this.ch.command(sql`${raw(ROLLUP_HEAD)}${u64(version)}${raw(ROLLUP_MID)}${spans}${raw(ROLLUP_TAIL)}`) : null,
      allDays.length ? this.ch.command(emptyUnitDays(projectId, allDays, conversationIds, [...looseUnits.keys(), ...looseGone], emptyAt)) : null,
      units.length ? this.ch.command(unitDays(version, spans)) : null,
    ]);
    await this.keepRollupDays(projectId, allDays);
  }

  /**
   * Recomputes the rollups' day layer (rollup-days.ts) of `days` from their unit rows, after this writer's unit_days
   * inserts: an empty row at an earlier stamp (a day left without units), then the server's recompute stamped after the
   * inserts and before its read — the newest row of a day was read after every unit insert whose recompute is done.
   */
  async keepRollupDays(projectId: string, days: readonly string[]): Promise<void> {
    if (!days.length) return;
    await this.ch.insertJsonEachRow('rollup_days', emptyDays(projectId, days, nextStamp()));
    await this.ch.command(recomputeDays(projectId, days, nextStamp()));
  }

  /**
   * New versions of spans whose counting bits or credit changed (a late child took the leaf role, a
   * parent arrived and its agent or conversation is inherited): the server copies each row with its
   * new bits and credited agent / conversation, versioned above every version it has of that span.
   * (18.16 binds no Nullable array: a null credit is sent as a flag beside an empty string.)
   */
  private async recount(projectId: string, list: RecountRow[], version: number): Promise<void> {
    await this.markDirty(list.map((r) => r.day));
    const columns = await this.spanColumns();
    const keys = list.map((r) => `${r.trace_id}/${r.span_id}`);
    const bits = list.map((r) => r.bits);
    const at = sql`indexOf(${strs(keys)}, concat(trace_id, '/', span_id))`;
    const credited = (c: 'agent_name' | 'conversation_id') => {
      const values = strs(list.map((r) => r[c] ?? ''));
      const isNull = { type: 'Array(UInt8)' as const, value: list.map((r) => (r[c] == null ? 1 : 0)) };
      return sql`if(${at} = 0, ${ident(c)}, if(arrayElement(${isNull}, ${at}) = 1, NULL, arrayElement(${values}, ${at}))) AS ${ident(c)}`;
    };
    const select = columns.map((c) =>
      c === 'counted'
        ? sql`transform(concat(trace_id, '/', span_id), ${strs(keys)}, ${{ type: 'Array(UInt8)', value: bits }}, counted) AS counted`
        : c === 'agent_name' || c === 'conversation_id'
          ? credited(c)
          : c === 'version'
            ? sql`greatest(version + 1, ${i64(version)}) AS version`
            : ident(c),
    );
    await this.ch.command(
      sql`INSERT INTO spans (${join(columns.map((c) => ident(c)), ', ')})
          SELECT ${join(select, ', ')} FROM spans FINAL WHERE project_id = ${str(projectId)} AND ${inDays(list.map((r) => r.day))}
          AND (trace_id, span_id) IN (${join(list.map((r) => sql`(${str(r.trace_id)}, ${str(r.span_id)})`), ', ')}) AND deleted = 0${FINAL_SETTINGS}`,
    );
  }

  /** Marks days as holding several versions of some span (see dirty_days, migration 0001). */
  async markDirty(days: Iterable<string>): Promise<void> {
    const list = [...new Set(days)];
    if (!list.length) return;
    const version = nextStamp();
    await this.ch.insertJsonEachRow('dirty_days', list.map((day) => JSON.stringify({ day, dirty: 1, version })).join('\n'));
    this.onDirty?.();
  }

  /** Called after days were marked dirty (the store schedules a cleaning). */
  onDirty: (() => void) | null = null;

  /**
   * Merges every dirty day that no write touched for `quietMs` (OPTIMIZE … FINAL of both span tables,
   * which leaves one version per span) and marks it clean with a stamp taken before the merge: a write
   * racing the merge marks the day dirty again after its insert, with a later stamp, and wins.
   * Returns the days cleaned.
   */
  async cleanDirtyDays(quietMs = 10_000): Promise<string[]> {
    const rows = await this.ch.rows<{ day: string; version: string }>(sql`SELECT day, version FROM dirty_days FINAL WHERE dirty = 1 ORDER BY day${FINAL_SETTINGS}`);
    const cutoff = Date.now() * 1000 - quietMs * 1000;
    const cleaned: string[] = [];
    for (const r of rows) {
      if (Number(r.version) > cutoff) continue;
      const stamp = nextStamp();
      // A day in one part has one version per span (a batch never holds a span twice): nothing to merge.
      const parts = await this.ch.rows<{ table: string; n: string }>(
        sql`SELECT table, count() AS n FROM system.parts WHERE database = currentDatabase() AND active AND partition = ${str(r.day)}
            AND table IN ('spans', 'span_payloads') GROUP BY table`,
      );
      try {
        for (const p of parts) {
          if (Number(p.n) > 1) await this.ch.command(sql`OPTIMIZE TABLE ${ident(p.table)} PARTITION ${date(r.day)} FINAL`, { optimize_throw_if_noop: 1 });
        }
      } catch {
        continue; // a merge of that day is running already: try again next time
      }
      await this.ch.insertJsonEachRow('dirty_days', JSON.stringify({ day: r.day, dirty: 0, version: stamp }));
      cleaned.push(r.day);
    }
    return cleaned;
  }

  private columns: Promise<string[]> | null = null;
  /** The spans table's columns, in order (read once from the server, so later migrations need no list here). */
  private spanColumns(): Promise<string[]> {
    this.columns ??= this.ch
      .rows<{ name: string }>(raw('DESCRIBE TABLE spans'))
      .then((r) => r.map((c) => c.name));
    return this.columns;
  }

  /**
   * Recomputes the summaries of these conversations from their turns' contributions (conversation_keys,
   * also after deletes). Returns every trace that any version of a turn row puts in them, with its
   * days: the traces the conversations' rollups are read from (a superset is harmless). `alsoRows`
   * (JSONEachRow lines of conversation_summaries with their own versions) go in the same insert.
   */
  async summarizeConversations(projectId: string, conversationIds: string[], alsoRows = ''): Promise<Map<string, string[]>> {
    const version = nextStamp();
    const rows = await this.ch.rows<ConversationKeyJson>(
      sql`SELECT ${CONVERSATION_KEY_COLUMNS} FROM conversation_keys WHERE project_id = ${str(projectId)} AND ${inList('conversation_id', conversationIds)}`,
    );
    // The newest version of each (conversation, trace), as FINAL would pick.
    const newest = new Map<string, ConversationKeyJson>();
    const traces = new Map<string, Set<string>>();
    for (const r of rows) {
      const k = `${r.conversation_id}\u0000${r.trace_id}`;
      const had = newest.get(k);
      if (!had || BigInt(r.version) > BigInt(had.version)) newest.set(k, r);
      let days = traces.get(r.trace_id);
      if (!days) traces.set(r.trace_id, (days = new Set()));
      rowDays(r.first_day, r.last_day).forEach((d) => days.add(d));
    }
    const byConv = new Map<string, TurnContributionRow[]>();
    for (const r of [...newest.values()].sort((x, y) => (x.trace_id < y.trace_id ? -1 : x.trace_id > y.trace_id ? 1 : 0))) {
      if (r.deleted) continue;
      const list = byConv.get(r.conversation_id);
      if (list) list.push(contributionRow(r));
      else byConv.set(r.conversation_id, [contributionRow(r)]);
    }
    const live: object[] = [];
    const gone: object[] = [];
    for (const c of conversationIds) {
      const s = summarizeConversation(projectId, c, byConv.get(c) ?? []);
      if (s) live.push(s);
      else gone.push({ ...emptyConversation, project_id: projectId, conversation_id: c, kind: 'conversation' });
    }
    await this.ch.insertJsonEachRow('conversation_summaries', [jsonRows(live, version), jsonRows(gone, version, 1), alsoRows].filter(Boolean).join('\n'));
    return new Map([...traces].map(([t, d]) => [t, [...d]]));
  }
}

/** Tombstones: the key and the defaults of every other column. */
const emptyTrace = { conversation_ids: [], agent_names: [], span_count: 0, error_count: 0 };
const emptyTurn = { agent_names: [], request_models: [], span_count: 0, error_count: 0, input_tokens: 0, output_tokens: 0 };
const emptyAgent = { span_count: 0, invocation_count: 0, error_count: 0, duration_ns: 0, input_tokens: 0, output_tokens: 0 };
const emptyConversation = { turn_count: 0, span_count: 0, agent_names: [], request_models: [], input_tokens: 0, output_tokens: 0, error_count: 0 };

/** Batches written together: their rows as they came (nothing copied), keys and resources joined. */
interface Merged {
  spans: BinaryRows[];
  payloads: BinaryRows[];
  resources: EncodedSpans['resources'];
  keys: EncodedSpans['keys'];
  search: EncodedSpans['search'][];
}

/** A batch with each span once (its last occurrence, as a later write replaces an earlier one). */
function lastOfEachSpan(b: Merged): Merged {
  const last = new Map<string, number>();
  b.keys.forEach(([p, t, s], i) => last.set(`${p}\u0000${t}\u0000${s}`, i));
  if (last.size === b.keys.length) return b;
  const keep = [...last.values()].sort((x, y) => x - y);
  return { spans: [pickRows(b.spans, keep)], payloads: [pickRows(b.payloads, keep)], resources: b.resources, keys: keep.map((i) => b.keys[i]!), search: b.search };
}

function splitResult(all: WriteResult & { replacedKeys: Set<string> }, b: Pick<EncodedSpans, 'keys'>): WriteResult {
  let inserted = 0;
  let replaced = 0;
  const seen = new Set<string>();
  const touched = new Map<string, { project_id: string; trace_id: string }>();
  for (const [p, t, s] of b.keys) {
    const k = `${p}\u0000${t}\u0000${s}`;
    touched.set(`${p}\u0000${t}`, { project_id: p, trace_id: t });
    if (seen.has(k)) continue;
    seen.add(k);
    if (all.replacedKeys.has(k)) replaced++;
    else inserted++;
  }
  return { inserted, replaced, touched: [...touched.values()] };
}

/**
 * Older versions of a span left live in another day's partition than its newest (a re-import that moved
 * its start to another day): ReplacingMergeTree replaces within a partition only, so the scans of that
 * day (`currentSpans`, FINAL or merged) would read the span a second time. Each gets a tombstone in its
 * own day at its version + 1 — above it, so FINAL and merges drop it there, and below the newest, which the
 * merge across days above (and in every later round) must still pick. A day whose newest row of the span
 * is already a tombstone needs none.
 */
function staleOnOtherDays<R extends { trace_id: string; span_id: string; day: string; version: string; deleted: number }>(rows: R[], newest: Map<string, R>): R[] {
  const perDay = new Map<string, R>();
  for (const r of rows) {
    const k = `${r.trace_id}/${r.span_id}\u0000${r.day}`;
    const had = perDay.get(k);
    if (!had || BigInt(r.version) > BigInt(had.version)) perDay.set(k, r);
  }
  return [...perDay.values()].filter((r) => {
    const top = newest.get(`${r.trace_id}/${r.span_id}`)!;
    return r !== top && r.day !== top.day && !r.deleted && BigInt(r.version) + 1n < BigInt(top.version);
  });
}
