// Migration 0023: score groups (issue 20, the Clusters view), kept by triggers in the transaction that
// writes, replaces or deletes scores (retention and project deletion included), so the view reads a
// few rows per (group, day, agent) instead of grouping every score row. Never edit once applied.
//
// The rule is domain/score-groups.ts's: a `failures` score with a label is in the group of its label
// ('signature'); any other score with value <= 0.499999999 is in the group of its name ('low'). A
// member is one (group, turn) — the turn is the trace, or 'c:' || conv_key for a conversation score —
// at the time and with the agent of its earliest row in the group (ties by score_id). Whenever a row
// of a group is inserted, updated or deleted, that (group, turn)'s member is recomputed from the
// turn's score rows; members are summed per (group, UTC day, agent) in score_group_days.
// (Score writes upsert with ON CONFLICT DO UPDATE: a REPLACE would delete without firing triggers.)
const IN_GROUP = (r: string) => `((${r}.name = 'failures' AND ${r}.label IS NOT NULL) OR (${r}.name != 'failures' AND ${r}.value <= 0.499999999))`;
const KIND = (r: string) => `CASE WHEN ${r}.name = 'failures' THEN 'signature' ELSE 'low' END`;
const KEY = (r: string) => `CASE WHEN ${r}.name = 'failures' THEN ${r}.label ELSE ${r}.name END`;
const DAY = '86400000000000';

/** Recomputes the member of row `r`'s (group, turn) from the scores table. */
const regroup = (r: string) => `
  DELETE FROM score_group_turns WHERE project_id = ${r}.project_id AND kind = ${KIND(r)} AND key = ${KEY(r)}
    AND turn = COALESCE(${r}.trace_id, 'c:' || ${r}.conv_key);
  INSERT INTO score_group_turns (project_id, kind, key, turn, trace_id, at_ns, agent_name)
    SELECT project_id, ${KIND(r)}, ${KEY(r)}, COALESCE(trace_id, 'c:' || conv_key), trace_id, created_at_ns, COALESCE(agent_name, '')
    FROM scores WHERE project_id = ${r}.project_id AND conv_key = ${r}.conv_key AND trace_id IS ${r}.trace_id AND name = ${r}.name
      AND CASE WHEN ${r}.name = 'failures' THEN label = ${r}.label ELSE value <= 0.499999999 END
    ORDER BY created_at_ns, score_id LIMIT 1;`;

export default /* sql */ `
CREATE TABLE score_group_turns (
  project_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  turn TEXT NOT NULL,
  trace_id TEXT,
  at_ns INTEGER NOT NULL,
  agent_name TEXT NOT NULL,
  PRIMARY KEY (project_id, kind, key, turn)
) WITHOUT ROWID;
-- A group's newest examples, its members in a window's partial days, a day's first/last after a delete.
CREATE INDEX score_group_turns_at ON score_group_turns (project_id, kind, key, at_ns);

CREATE TABLE score_group_days (
  project_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  day INTEGER NOT NULL,
  agent_name TEXT NOT NULL,
  turns INTEGER NOT NULL,
  first_ns INTEGER NOT NULL,
  last_ns INTEGER NOT NULL,
  PRIMARY KEY (project_id, kind, key, day, agent_name)
) WITHOUT ROWID;

CREATE TRIGGER score_group_member_added AFTER INSERT ON score_group_turns BEGIN
  INSERT INTO score_group_days (project_id, kind, key, day, agent_name, turns, first_ns, last_ns)
    VALUES (NEW.project_id, NEW.kind, NEW.key, NEW.at_ns / ${DAY}, NEW.agent_name, 1, NEW.at_ns, NEW.at_ns)
    ON CONFLICT (project_id, kind, key, day, agent_name) DO UPDATE
      SET turns = turns + 1, first_ns = MIN(first_ns, excluded.first_ns), last_ns = MAX(last_ns, excluded.last_ns);
END;

CREATE TRIGGER score_group_member_removed AFTER DELETE ON score_group_turns BEGIN
  UPDATE score_group_days SET turns = turns - 1,
    first_ns = CASE WHEN first_ns < OLD.at_ns THEN first_ns ELSE COALESCE((SELECT MIN(at_ns) FROM score_group_turns
      WHERE project_id = OLD.project_id AND kind = OLD.kind AND key = OLD.key AND agent_name = OLD.agent_name
        AND at_ns >= OLD.at_ns / ${DAY} * ${DAY} AND at_ns < (OLD.at_ns / ${DAY} + 1) * ${DAY}), first_ns) END,
    last_ns = CASE WHEN last_ns > OLD.at_ns THEN last_ns ELSE COALESCE((SELECT MAX(at_ns) FROM score_group_turns
      WHERE project_id = OLD.project_id AND kind = OLD.kind AND key = OLD.key AND agent_name = OLD.agent_name
        AND at_ns >= OLD.at_ns / ${DAY} * ${DAY} AND at_ns < (OLD.at_ns / ${DAY} + 1) * ${DAY}), last_ns) END
  WHERE project_id = OLD.project_id AND kind = OLD.kind AND key = OLD.key AND day = OLD.at_ns / ${DAY} AND agent_name = OLD.agent_name;
  DELETE FROM score_group_days WHERE project_id = OLD.project_id AND kind = OLD.kind AND key = OLD.key
    AND day = OLD.at_ns / ${DAY} AND agent_name = OLD.agent_name AND turns <= 0;
END;

-- The scores already stored: the earliest row of each (group, turn); the trigger above sums them.
INSERT INTO score_group_turns (project_id, kind, key, turn, trace_id, at_ns, agent_name)
  SELECT project_id, kind, key, turn, trace_id, created_at_ns, agent FROM (
    SELECT project_id, kind, key, turn, trace_id, created_at_ns, agent,
      ROW_NUMBER() OVER (PARTITION BY project_id, kind, key, turn ORDER BY created_at_ns, score_id) AS rn
    FROM (SELECT project_id, ${KIND('s')} AS kind, ${KEY('s')} AS key, COALESCE(trace_id, 'c:' || conv_key) AS turn, trace_id,
            created_at_ns, COALESCE(agent_name, '') AS agent, score_id
          FROM scores s WHERE ${IN_GROUP('s')}))
  WHERE rn = 1;

CREATE TRIGGER score_groups_scored AFTER INSERT ON scores WHEN ${IN_GROUP('NEW')} BEGIN${regroup('NEW')}
END;
CREATE TRIGGER score_groups_unscored AFTER DELETE ON scores WHEN ${IN_GROUP('OLD')} BEGIN${regroup('OLD')}
END;
CREATE TRIGGER score_groups_rescored_old AFTER UPDATE ON scores WHEN ${IN_GROUP('OLD')} BEGIN${regroup('OLD')}
END;
CREATE TRIGGER score_groups_rescored_new AFTER UPDATE ON scores WHEN ${IN_GROUP('NEW')} BEGIN${regroup('NEW')}
END;
`;
