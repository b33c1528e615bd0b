import { randomUUID } from 'node:crypto';
import type { Db } from './open.js';
import type { FeedbackRecord } from '../../../shared/contract/common.js';
import { isoFromUs, nsFromIso } from '../../domain/time.js';
import { svcRef } from '../../domain/refs.js';
import type { FeedbackStore, NewFeedback } from '../ports.js';
import type { Sync } from './sync.js';

/** SQL of the feedback domain (semantics §8). Exported texts let a test pin their query plans. */
export const FEEDBACK_SQL = {
  insert: `INSERT INTO feedback (id, project_id, target_kind, target_id, feedback_type, svc_ref, payload, creator,
    created_at_us, svc_user_id, runnable_ref, call_ref, trigger_ref, annotation_ref, scorer_tags, scorer_tag_reasons,
    scorer_tag_confidences, scorer_ratings, scorer_rating_reasons, scorer_rating_confidences)
    VALUES (@id, @project_id, @target_kind, @target_id, @feedback_type, @svc_ref, @payload, @creator, @created_at_us,
    @svc_user_id, @runnable_ref, @call_ref, @trigger_ref, @annotation_ref, @scorer_tags, @scorer_tag_reasons,
    @scorer_tag_confidences, @scorer_ratings, @scorer_rating_reasons, @scorer_rating_confidences)`,
  forTargets: `SELECT * FROM feedback WHERE project_id = @project_id AND target_kind = @target_kind
    AND target_id IN (SELECT value FROM json_each(@ids)) ORDER BY created_at_us, id`,
  query: `SELECT * FROM feedback WHERE project_id = @project_id
    AND (@target_kind IS NULL OR target_kind = @target_kind) AND (@target_id IS NULL OR target_id = @target_id)
    AND (@feedback_type IS NULL OR feedback_type = @feedback_type)
    ORDER BY created_at_us DESC, id DESC LIMIT @limit OFFSET @offset`,
  update: `UPDATE feedback SET feedback_type = @feedback_type, payload = @payload, creator = @creator, svc_user_id = @svc_user_id,
    runnable_ref = @runnable_ref, call_ref = @call_ref, trigger_ref = @trigger_ref, annotation_ref = @annotation_ref,
    scorer_tags = @scorer_tags, scorer_tag_reasons = @scorer_tag_reasons, scorer_tag_confidences = @scorer_tag_confidences,
    scorer_ratings = @scorer_ratings, scorer_rating_reasons = @scorer_rating_reasons, scorer_rating_confidences = @scorer_rating_confidences
    WHERE project_id = @project_id AND id = @id`,
  remove: `DELETE FROM feedback WHERE project_id = ? AND id = ?`,
  count: `SELECT COUNT(*) AS n FROM feedback WHERE project_id = @project_id
    AND (@target_kind IS NULL OR target_kind = @target_kind) AND (@target_id IS NULL OR target_id = @target_id)
    AND (@feedback_type IS NULL OR feedback_type = @feedback_type)`,
} as const;

/** The feedback store's methods, synchronous (app-store.ts wraps them in the port's async ones). */
export type FeedbackRepo = Sync<FeedbackStore>;

type Row = {
  id: string; project_id: string; target_kind: string; target_id: string; feedback_type: string; svc_ref: string;
  payload: string; creator: string | null; created_at_us: number | null; svc_user_id: string | null;
  runnable_ref: string | null; call_ref: string | null; trigger_ref: string | null; annotation_ref: string | null;
  scorer_tags: string; scorer_tag_reasons: string; scorer_tag_confidences: string; scorer_ratings: string;
  scorer_rating_reasons: string; scorer_rating_confidences: string;
};

const parse = <T>(text: string, empty: T): T => {
  try {
    return (JSON.parse(text) as T) ?? empty;
  } catch {
    return empty;
  }
};

export function toRecord(r: Row): FeedbackRecord {
  return {
    id: r.id,
    feedback_type: r.feedback_type,
    svc_ref: r.svc_ref,
    payload: parse(r.payload, {}),
    creator: r.creator,
    created_at: r.created_at_us == null ? null : isoFromUs(r.created_at_us),
    svc_user_id: r.svc_user_id,
    runnable_ref: r.runnable_ref,
    call_ref: r.call_ref,
    trigger_ref: r.trigger_ref,
    annotation_ref: r.annotation_ref,
    scorer_tags: parse(r.scorer_tags, []),
    scorer_tag_reasons: parse(r.scorer_tag_reasons, {}),
    scorer_tag_confidences: parse(r.scorer_tag_confidences, {}),
    scorer_ratings: parse(r.scorer_ratings, {}),
    scorer_rating_reasons: parse(r.scorer_rating_reasons, {}),
    scorer_rating_confidences: parse(r.scorer_rating_confidences, {}),
  };
}

/** Bound values of the columns an edit may change (omitted fields take the interface's empty values). */
function editable(f: Omit<NewFeedback, 'project_id' | 'target_kind' | 'target_id'>) {
  return {
    feedback_type: f.feedback_type, payload: JSON.stringify(f.payload ?? {}), creator: f.creator ?? null,
    svc_user_id: f.svc_user_id ?? null, runnable_ref: f.runnable_ref ?? null, call_ref: f.call_ref ?? null,
    trigger_ref: f.trigger_ref ?? null, annotation_ref: f.annotation_ref ?? null,
    scorer_tags: JSON.stringify(f.scorer_tags ?? []), scorer_tag_reasons: JSON.stringify(f.scorer_tag_reasons ?? {}),
    scorer_tag_confidences: JSON.stringify(f.scorer_tag_confidences ?? {}), scorer_ratings: JSON.stringify(f.scorer_ratings ?? {}),
    scorer_rating_reasons: JSON.stringify(f.scorer_rating_reasons ?? {}),
    scorer_rating_confidences: JSON.stringify(f.scorer_rating_confidences ?? {}),
  };
}

export function createFeedbackRepo(db: Db): FeedbackRepo {
  const insert = db.prepare(FEEDBACK_SQL.insert);
  const byId = db.prepare<[string], Row>('SELECT * FROM feedback WHERE id = ?');
  const forTargets = db.prepare<{ project_id: string; target_kind: string; ids: string }, Row>(FEEDBACK_SQL.forTargets);
  const query = db.prepare<Record<string, unknown>, Row>(FEEDBACK_SQL.query);
  const count = db.prepare<Record<string, unknown>, { n: number }>(FEEDBACK_SQL.count);
  const update = db.prepare(FEEDBACK_SQL.update);
  const remove = db.prepare(FEEDBACK_SQL.remove);
  return {
    insert(f) {
      const id = f.id ?? randomUUID();
      const ns = f.created_at ? nsFromIso(f.created_at) : null;
      if (f.created_at && ns == null) throw new Error(`feedback ${id}: created_at is not a date-time: ${f.created_at}`);
      const createdUs = ns != null ? Number(ns / 1000n) : Date.now() * 1000;
      insert.run({
        id, project_id: f.project_id, target_kind: f.target_kind, target_id: f.target_id,
        svc_ref: svcRef({ project_id: f.project_id, kind: f.target_kind, id: f.target_id }), created_at_us: createdUs, ...editable(f),
      });
      return toRecord(byId.get(id)!);
    },
    update(project_id, id, patch) {
      const cur = byId.get(id);
      if (!cur || cur.project_id !== project_id) return null;
      const was = toRecord(cur);
      update.run({ project_id, id, ...editable({ ...was, ...patch }) });
      return toRecord(byId.get(id)!);
    },
    remove: (project_id, id) => remove.run(project_id, id).changes > 0,
    forTargets(project_id, target_kind, ids) {
      const out = new Map<string, FeedbackRecord[]>();
      if (ids.length === 0) return out;
      for (const r of forTargets.all({ project_id, target_kind, ids: JSON.stringify(ids) })) {
        const list = out.get(r.target_id);
        if (list) list.push(toRecord(r));
        else out.set(r.target_id, [toRecord(r)]);
      }
      return out;
    },
    query(f) {
      const params = {
        project_id: f.project_id, target_kind: f.target_kind ?? null, target_id: f.target_id ?? null,
        feedback_type: f.feedback_type ?? null,
      };
      return {
        feedback: query.all({ ...params, limit: f.limit, offset: f.offset }).map(toRecord),
        total_count: count.get(params)?.n ?? 0,
      };
    },
  };
}
