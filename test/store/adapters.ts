/**
 * The TraceStore adapters the port's contract tests run against. A second adapter (ClickHouse) adds
 * its factory here; the test files stay unchanged. `capabilities` names what an adapter promises
 * beyond the interface, so a case that cannot hold for one says why instead of silently passing.
 */
import type { TraceStore } from '../../src/main/store/ports.js';
import { openTestStores } from '../helpers/temp-store.js';
import { openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { freshClickHouseStore } from '../helpers/clickhouse.js';

export interface OpenedAdapter {
  traces: TraceStore;
  close(): Promise<void>;
}

export interface AdapterCase {
  name: string;
  open(): Promise<OpenedAdapter>;
  /** Reads run concurrently and a running read stops when its signal fires. */
  concurrentReads: boolean;
}

export const ADAPTERS: AdapterCase[] = [
  { name: 'sqlite, read pool', open: () => openTestStores(undefined, { readers: 2 }), concurrentReads: true },
  { name: 'sqlite, reads on the writer connection', open: () => openTestStores(undefined, { readers: 0 }), concurrentReads: false },
  {
    // A fresh database on the run's one private server (started on first use; a missing
    // clickhouse-server fails the open with the fix in its message, never a silent skip).
    name: 'clickhouse',
    open: async () => {
      const traces = await openClickHouseTraceStore((await freshClickHouseStore('contract')).url);
      // The group view reads the rollups' day layer once its fill at open is done (at once on a fresh database).
      await traces.fillRollupDays();
      return { traces, close: () => traces.close() };
    },
    concurrentReads: true,
  },
];
