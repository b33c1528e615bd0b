/**
 * A ClickHouse trace store's operations called the way the HTTP server calls them (`dispatch` with a
 * ServiceContext), for the adapter's test files: `open` a store on a test database, `call` an operation
 * on it. One app store (training, settings) is opened on the first call; every store is closed after
 * the file's tests.
 */
import os from 'node:os';
import { afterAll } from 'vitest';
import { dispatch } from '../../src/main/transport/dispatch.js';
import { EventBus } from '../../src/main/service/events.js';
import type { ServiceContext } from '../../src/main/service/context.js';
import type { TraceStore } from '../../src/main/store/ports.js';
import { openClickHouseTraceStore } from '../../src/main/store/clickhouse/index.js';
import { openTestStores, type TestStores } from './temp-store.js';

export interface ClickHouseService {
  open(url: string): Promise<TraceStore>;
  call(traces: TraceStore, op: string, body: unknown): Promise<any>;
}

/** Call at a test file's top level (it registers the file's afterAll). */
export function clickhouseService(): ClickHouseService {
  const closing: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(closing.map((c) => c.close())));
  let app: TestStores | null = null;
  return {
    async open(url) {
      const s = await openClickHouseTraceStore(url);
      closing.push(s);
      return s;
    },
    async call(traces, op, body) {
      if (!app) {
        app = await openTestStores();
        closing.push(app);
      }
      return dispatch(op, body, { traces, app: app.app, events: new EventBus(), dataDir: os.tmpdir(), apiKey: 'test' } satisfies ServiceContext);
    },
  };
}
