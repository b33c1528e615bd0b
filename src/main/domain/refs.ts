/**
 * `svc_ref` addresses what a feedback record is about (semantics §8):
 * `svc:///<project_id>/conversation/<id>`, `…/trace/<id>`, `…/span/<id>`. Project ids usually hold a
 * slash (`entity/project`) and conversation ids may too (training rollouts: `<model>/<split>/step<N>/…`),
 * so the project is the shortest prefix followed by a kind segment and the id is everything after.
 */
export type TargetKind = 'conversation' | 'trace' | 'span';

export interface FeedbackTarget {
  project_id: string;
  kind: TargetKind;
  id: string;
}

export const svcRef = (t: FeedbackTarget): string => `svc:///${t.project_id}/${t.kind}/${t.id}`;

export function parseSvcRef(ref: string): FeedbackTarget | null {
  const m = /^svc:\/\/\/(.+?)\/(conversation|trace|span)\/(.+)$/.exec(ref);
  if (!m) return null;
  return { project_id: m[1]!, kind: m[2] as TargetKind, id: m[3]! };
}
