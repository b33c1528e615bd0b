// ClickHouse migration 0005: one accounting for a conversation, a trace, an agent and a group (issue
// 18 item 1, decision 0021), the twin of SQLite's 0018. Never edit once applied. ClickHouse 18.16
// has no ADD COLUMN IF NOT EXISTS: the migrator (migrate.ts) treats "column already exists" from an
// ADD COLUMN as done, so a run interrupted half-way is finished by running it again.
//
// spans.agent_name / conversation_id hold the credited agent and conversation from now on (the
// writer, domain/accounting.ts), with counted bits 16 / 32 marking inherited values; rows written
// before keep their own values (bits 0) until their trace is written again.
export default [
  // How many spans' tokens counted beside each token total (0: the usage is unknown, shown "–"). Rows
  // written before read a stand-in: any token counted means some usage was reported.
  /* sql */ `ALTER TABLE conversation_turns ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE conversation_summaries ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE conversation_keys ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  /* sql */ `ALTER TABLE agent_trace_stats ADD COLUMN usage_spans UInt32 DEFAULT if(input_tokens != 0 OR output_tokens != 0, 1, 0)`,
  // The latest end of each rollup row's spans (a group's wall time); rows rolled up before read their latest start.
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN last_end Array(Nullable(Int64)) DEFAULT last_ns`,
];
