/**
 * SpoolStatus — "importing N spans" in the sidebar while large OTLP bodies, already answered, are
 * drained from the spool into the store (docs/ingest.md "The OTLP spool"). The backlog is read once
 * (`system.health`), then followed by the server's `spool.status` events: no polling. Hidden when
 * nothing waits. Props: none.
 */
import { useState } from 'react';
import { useOp } from '../api/query';
import { useEvents } from '../api/events';

type Backlog = { bodies: number; spans: number; held: boolean };

export function SpoolStatus() {
  const { data, dataUpdatedAt } = useOp('system.health', {}, { staleTime: Infinity });
  const [pushed, setPushed] = useState<{ at: number; backlog: Backlog } | null>(null);
  useEvents((e) => {
    if (e.type === 'spool.status') setPushed({ at: Date.now(), backlog: { bodies: e.bodies, spans: e.spans, held: e.held } });
  });
  // The newer of the two wins: after a reconnect the refetched health replaces a pushed state whose
  // later events this page missed while the server was away (it drained before the stream reopened).
  const backlog = pushed && pushed.at >= dataUpdatedAt ? pushed.backlog : (data?.spooled ?? null);
  if (!backlog || backlog.bodies === 0) return null;
  const spans = `${backlog.spans.toLocaleString('en-US')} span${backlog.spans === 1 ? '' : 's'}`;
  return (
    <div className="spool-status faint" role="status" data-testid="spool-status" title="Large OTLP posts are answered once kept on disk, then imported here">
      {backlog.held ? `${spans} waiting to be imported (draining is off)` : `importing ${spans}…`}
    </div>
  );
}
