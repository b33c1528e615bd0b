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

/** The shortest-project reading of `ref` (parseSvcRefs' first), or null when it is not a svc_ref. */
export const parseSvcRef = (ref: string): FeedbackTarget | null => parseSvcRefs(ref)[0] ?? null;

/**
 * Every way `ref` reads, shortest project first: a project whose name ends in a kind segment
 * (`acme/trace`) makes `svc:///acme/trace/trace/t1` read as project `acme` (id `trace/t1`) or as project
 * `acme/trace` (id `t1`). The caller picks by the project it knows (issue 22.11).
 */
export function parseSvcRefs(ref: string): FeedbackTarget[] {
  const m = /^svc:\/\/\/(.+)$/.exec(ref);
  if (!m) return [];
  const rest = m[1]!;
  const out: FeedbackTarget[] = [];
  // The slash after the kind is looked ahead, not consumed, so `/trace/trace/` yields both readings.
  for (const k of rest.matchAll(/\/(conversation|trace|span)(?=\/)/g)) {
    const project = rest.slice(0, k.index);
    const id = rest.slice(k.index + k[0].length + 1);
    if (project && id) out.push({ project_id: project, kind: k[1] as TargetKind, id });
  }
  return out;
}
