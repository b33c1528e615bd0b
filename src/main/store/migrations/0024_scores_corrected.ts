// Migration 0024: the corrected scores of a project, newest first (issue 20: POST /datasets/from-reviews
// reads only scores carrying a reviewer's correction; without this it walked every score row of the
// project to find the few corrected ones). Partial: only corrected rows are in it. Never edit once applied.
export default /* sql */ `
CREATE INDEX scores_corrected ON scores (project_id, created_at_ns, score_id) WHERE correction IS NOT NULL;
`;
