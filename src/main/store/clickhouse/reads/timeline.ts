/** The trace waterfall's columns (traces.timeline): light columns of one trace, columnar. */
import type { z } from 'zod';
import type { TimelineColumns } from '../../../../shared/contract/timeline.js';
import type { ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { raw, sql, str, type Sql } from '../sql.js';
import { traceDays } from './chat.js';
import { traceIn } from './keys.js';
import { FINAL_SETTINGS } from './scope.js';

type Columns = z.output<typeof TimelineColumns>;
type Row = {
  span_id: string; parent_span_id: string | null; span_name: string; operation_name: string | null; agent_name: string | null;
  tool_name: string | null; request_model: string | null; response_model: string | null; status_code: 'UNSET' | 'OK' | 'ERROR';
  start_us: string | null; end_us: string | null; input_tokens: string | null; output_tokens: string | null; total_cost_usd: number | null;
  service_name: string | null;
};

export async function timeline(ch: ClickHouse, projectId: string, traceId: string, opts: ReadOptions): Promise<Columns> {
  const read = (days: Sql) =>
    ch.rows<Row>(
      sql`SELECT span_id, parent_span_id, span_name, operation_name, agent_name, tool_name, request_model, response_model, status_code,
            intDiv(start_ns, 1000) AS start_us, intDiv(end_ns, 1000) AS end_us, input_tokens, output_tokens, total_cost_usd, service_name
          FROM spans FINAL WHERE project_id = ${str(projectId)} AND ${days} AND ${traceIn([traceId])} AND deleted = 0
          ORDER BY start_ns ASC NULLS LAST, span_id ASC${FINAL_SETTINGS}`,
      opts,
    );
  let rows = await read(await traceDays(ch, projectId, [traceId], opts));
  if (!rows.length) rows = await read(raw('1'));
  const num = (v: string | null) => (v == null ? null : Number(v));
  return {
    span_id: rows.map((r) => r.span_id),
    parent_span_id: rows.map((r) => r.parent_span_id),
    span_name: rows.map((r) => r.span_name),
    operation_name: rows.map((r) => r.operation_name),
    agent_name: rows.map((r) => r.agent_name),
    tool_name: rows.map((r) => r.tool_name),
    request_model: rows.map((r) => r.request_model),
    response_model: rows.map((r) => r.response_model),
    status_code: rows.map((r) => r.status_code),
    start_us: rows.map((r) => num(r.start_us)),
    end_us: rows.map((r) => num(r.end_us)),
    input_tokens: rows.map((r) => num(r.input_tokens)),
    output_tokens: rows.map((r) => num(r.output_tokens)),
    total_cost_usd: rows.map((r) => r.total_cost_usd),
    service_name: rows.map((r) => r.service_name),
  };
}
