/**
 * Analytics query figures (issue 3) on the shared ≥1M-span store (20,000 conversations, 50 agents):
 * the agents list, a spans list page, group by agent_name with three measures, and threads over all
 * conversations. Each query goes through `dispatch` (zod parse + handler), as HTTP and IPC call it.
 */
import { openStores } from '../../src/main/store/index.js';
import { EventBus } from '../../src/main/service/events.js';
import { dispatch } from '../../src/main/transport/dispatch.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { BenchSection } from '../lib/section.js';
import { ensureBenchStore } from '../lib/bench-store.js';
import { timeOp } from '../lib/timing.js';
import { groupByAgent } from '../lib/ui-requests.js';

const PROJECT = 'bench/genai';

const section: BenchSection = {
  title: 'Analytics: threads, agents, spans query on the 1M-span store',
  async run({ workDir, print }) {
    const { dataDir, spans } = await ensureBenchStore(workDir);
    print('store spans', spans);
    const store = await openStores(dataDir);
    const ctx: ServiceContext = { traces: store.traces, app: store.app, events: new EventBus(), dataDir, apiKey: 'bench' };
    const time = async (name: string, body: unknown, runs: number, target: string, op = 'spans.query') => {
      const t = await timeOp(ctx, op, body, runs);
      print(`${name} p50 (ms)`, t.p50.toFixed(1), target);
      print(`${name} p95 (ms)`, t.p95.toFixed(1));
      // The machine is shared: CPU time says what the query costs when wall time mostly says the load.
      print(`${name} CPU p50 (ms)`, t.cpuP50.toFixed(1));
    };
    try {
      const agents = (await dispatch('agents.query', { project_id: PROJECT }, ctx)) as { total_count: number };
      print('agents in the store', agents.total_count);
      await time('agents query', { project_id: PROJECT }, 30, '≤ 100 ms', 'agents.query');
      await time('agents query with costs, by span_count', { project_id: PROJECT, include_costs: true, sort_by: [{ field: 'span_count', direction: 'desc' }] }, 30, '≤ 100 ms', 'agents.query');
      await time('spans list page (100, newest first)', { project_id: PROJECT }, 20, '≤ 50 ms');
      await time('spans list page, agent filter', { project_id: PROJECT, query: { $expr: { $eq: [{ $getField: 'gen_ai.agent.name' }, { $literal: 'agent-07' }] } } }, 20, '≤ 50 ms');
      await time('spans list page, custom attr filter', { project_id: PROJECT, query: { $expr: { $eq: [{ $getField: 'app.region' }, { $literal: 'eu-west-1' }] } }, custom_attr_columns: [{ key: 'app.region', source: 'custom_attrs_string' }] }, 10, '≤ 50 ms');
      await time('group by agent_name, 3 measures', groupByAgent(PROJECT), 5, '≤ 1 s');
      await time('threads, all conversations (limit 10000)', { project_id: PROJECT, limit: 10000 }, 5, '≤ 1 s', 'threads.query');
      await time('threads sorted by p99 (all computed)', { project_id: PROJECT, limit: 100, sort_by: [{ field: 'p99_turn_duration_ms', direction: 'desc' }] }, 5, '≤ 1 s', 'threads.query');
    } finally {
      await store.close();
    }
  },
};
export default section;
