// ClickHouse migration 0005: one accounting for a conversation, a trace, an agent and a group (issue
// 18 item 1, decision 0022), the twin of SQLite's 0019. Never edit once applied. ClickHouse 18.16
// has no ADD COLUMN IF NOT EXISTS: the migrator (migrate.ts) treats "column already exists" from an
// ADD COLUMN as done, so a run interrupted half-way is finished by running it again.
//
// spans.agent_name / conversation_id hold the credited agent and conversation from now on (the
// writer, domain/accounting.ts), with counted bits 16 / 32 marking inherited values; rows written
// before keep their own values (bits 0) until their trace is written again.
import { ROLLUP_HEAD, ROLLUP_MID, ROLLUP_TAIL } from '../rollups.js';

export default [
  // How many spans' tokens counted beside each token total (0: the usage is unknown, shown "–"). Rows
  // written before read a stand-in: any token counted means some usage was reported.
  /* sql */ `ALTER TABLE conversation_turns ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE conversation_summaries ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE conversation_keys ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE agent_trace_stats ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  // The latest end of each rollup row's spans (a group's wall time), then every unit rolled up again with
  // it (version 1: newer than 0003's backfill, older than any writer's stamp, so a unit a writer has
  // recomputed meanwhile keeps its row). If rollups.ts changes, freeze this text here as 0003 was.
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN last_end Array(Nullable(Int64)) DEFAULT last_ns`,
  `${ROLLUP_HEAD}1${ROLLUP_MID}1${ROLLUP_TAIL}`,
];
