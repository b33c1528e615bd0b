// ClickHouse migration 0009: the term index of the search of what was said (issue 19;
// clickhouse/search-index.ts builds its rows, reads/matches.ts reads them). 18.16 refuses data-skipping
// indexes (ngrambf/tokenbf), so the adapter keeps an inverted index itself. Never edit once applied.
//
// A document is up to four traces of one conversation (one trace without a conversation) of a write
// batch and day; its terms are the hashed trigrams of its spans' texts (domain/search-terms.ts).
// The writer inserts one row per document into search_input (Null: nothing is kept there) and the
// two views spread it into the tables. Both are partitioned by the spans' day, so retention drops
// their days with the spans'.
export default [
  /* sql */ `
-- (term → documents). A lookup reads the granules of its project's term only: the key starts with
-- (project_id, term), rows are tiny (a 32-bit term, a 64-bit document), and within a term documents
-- are in the order they were written (ids grow with time). Repeated rows (a re-import) are merged away.
CREATE TABLE IF NOT EXISTS search_terms (
  day Date,
  project_id String,
  term UInt32,
  doc UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY day
ORDER BY (project_id, term, doc)
SETTINGS index_granularity = 1024`,
  /* sql */ `
-- (document → traces), read for the documents a lookup names. A deleted trace's rows get a
-- tombstone (deleted = 1, newer version), purged with the spans' (retention.ts).
CREATE TABLE IF NOT EXISTS search_docs (
  day Date,
  project_id String,
  doc UInt64,
  trace_id String,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
PARTITION BY day
ORDER BY (project_id, doc, trace_id)
SETTINGS index_granularity = 256`,
  /* sql */ `
CREATE TABLE IF NOT EXISTS search_input (
  day Date,
  project_id String,
  doc UInt64,
  trace_ids Array(String),
  terms Array(UInt32)
) ENGINE = Null`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS search_input_terms TO search_terms AS
SELECT day, project_id, term, doc FROM search_input ARRAY JOIN terms AS term`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS search_input_docs TO search_docs AS
SELECT day, project_id, doc, trace_id, doc AS version, toUInt8(0) AS deleted FROM search_input ARRAY JOIN trace_ids AS trace_id`,
  /* sql */ `
-- The backfill of spans stored before this migration (search-index.ts, run when a store opens): its
-- progress (the last trace indexed) and done = 1 at the end; search scans until then. A database
-- without spans has nothing to index.
CREATE TABLE IF NOT EXISTS search_backfill (
  name String,
  project_id String,
  trace_id String,
  done UInt8,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY name`,
  /* sql */ `
INSERT INTO search_backfill (name, project_id, trace_id, done, version)
SELECT 'terms', '', '', toUInt8((SELECT count() FROM spans) = 0), 0`,
];
