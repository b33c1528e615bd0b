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
  const { data } = useOp('system.health', {}, { staleTime: Infinity });
  const [pushed, setPushed] = useState<Backlog | null>(null);
  useEvents((e) => {
    if (e.type === 'spool.status') setPushed({ bodies: e.bodies, spans: e.spans, held: e.held });
  });
  const backlog = pushed ?? data?.spooled ?? null;
  if (!backlog || backlog.bodies === 0) return null;
  const spans = `${backlog.spans.toLocaleString('en-US')} span${backlog.spans === 1 ? '' : 's'}`;
  return (
    <div className="spool-status faint" role="status" data-testid="spool-status" title="Large OTLP posts are answered once kept on disk, then imported here">
      {backlog.held ? `${spans} waiting to be imported (draining is off)` : `importing ${spans}…`}
    </div>
  );
}
