// Migration 0030: span_kind and response_model join the rollup keys (issue 19 item 2: the Spans page's
// group view with a condition on either read every span of the project — 1M: 1.8 s with span_kind, 0.6 s
// with response_model; 10M: 23 s and 5.6 s). In GenAI spans both follow from the operation and the
// request model, so the rows barely grow (a 1M bench store: 15,458 layer rows and 153,790 rollup rows
// with or without them; docs/store.md). Both tables are refilled from the spans at the next open
// (summary_backfill 'rollups', sqlite/summaries/rollups.ts). Never edit once applied.
export default /* sql */ `
ALTER TABLE span_rollups ADD COLUMN span_kind TEXT;
ALTER TABLE span_rollups ADD COLUMN response_model TEXT;
ALTER TABLE span_rollup_days ADD COLUMN span_kind TEXT;
ALTER TABLE span_rollup_days ADD COLUMN response_model TEXT;
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'rollups' WHERE EXISTS (SELECT 1 FROM spans);
`;
