/**
 * Group mode: edit a draft spec in the builder, Apply runs it (so half-typed keys never hit the
 * server), results in GroupTable. The exact request is shown (and copyable as curl) so what is on
 * screen can be reproduced against POST /agents/spans/query.
 */
import { useMemo, useState } from 'react';
import type { SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { GroupBuilder } from './GroupBuilder';
import { GroupTable } from './GroupTable';
import { groupRequestPart, type GroupSpec } from './groupModel';
import { defaultGroupSpec, useSpansUi } from './spansStore';
import { ErrorNote } from '../../components/ErrorNote';

const LIMIT = 1000;

export function GroupView({ project, filterPart, onDrill }: { project: string; filterPart: Record<string, unknown>; onDrill(conds: { field: string; value: string }[]): void }) {
  const saved = useSpansUi((s) => s.groupSpecs[project]);
  const setSaved = useSpansUi((s) => s.setGroupSpec);
  const applied = saved ?? defaultGroupSpec();
  const [draft, setDraft] = useState<GroupSpec>(applied);
  const [sorting, setSorting] = useState<SortingState>([]);
  const dirty = JSON.stringify(draft) !== JSON.stringify(applied);

  const groupPart = useMemo(() => groupRequestPart(applied), [applied]);
  const request = useMemo(
    () => ({
      project_id: project,
      include_costs: true,
      limit: LIMIT,
      ...groupPart,
      ...(sorting.length ? { sort_by: sorting.map((s) => ({ field: s.id, direction: s.desc ? ('desc' as const) : ('asc' as const) })) } : {}),
      ...filterPart,
    }),
    [project, groupPart, sorting, filterPart],
  );
  const hasKeys = 'group_by' in groupPart;
  const q = useOp('spans.query', hasKeys ? request : null);
  const keyRefs = (groupPart.group_by as { alias: string; key: string }[] | undefined) ?? [];
  const keyAliases = keyRefs.map((k) => k.alias);
  // Headers show the key as the user typed it (`app.customer_tier`), not its derived alias.
  const keyLabels = useMemo(() => Object.fromEntries(((groupPart.group_by as { alias: string; key: string }[] | undefined) ?? []).map((k) => [k.alias, k.key])), [groupPart]);
  const measureAliases = ((groupPart.measures as { alias: string }[] | undefined) ?? []).map((m) => m.alias);
  const distAliases = ((groupPart.group_distributions as { alias: string }[] | undefined) ?? []).map((d) => d.alias);
  // While a changed grouping loads, the previous answer (kept as placeholder) has other columns: its
  // rows under the new header would read "(none)" everywhere. Show them only if they fit the header.
  const fits = (g: { group_keys: Record<string, unknown>; metrics: Record<string, unknown>; distributions: Record<string, unknown> }) =>
    keyAliases.every((a) => a in g.group_keys) && measureAliases.every((a) => a in g.metrics) && distAliases.every((a) => a in g.distributions);
  const shown = q.data && (!q.isPlaceholderData || q.data.groups.every(fits)) ? q.data : undefined;

  return (
    <div className="group-view">
      <GroupBuilder spec={draft} onChange={setDraft} />
      <div className="toolbar">
        <button className="primary" onClick={() => setSaved(project, draft)} disabled={!dirty} data-testid="apply-group">Apply</button>
        {dirty && <button onClick={() => setDraft(applied)}>Discard changes</button>}
        <span className="muted" data-testid="groups-total">{shown ? `${shown.total_count} groups` : q.error ? 'No result' : hasKeys ? 'Loading…' : 'Choose a group key'}</span>
        <details className="request-box">
          <summary>Request</summary>
          <pre className="mono" data-testid="group-request">{JSON.stringify(request, null, 2)}</pre>
          <button onClick={() => void navigator.clipboard?.writeText(curlFor(request))}>Copy as curl</button>
        </details>
      </div>
      <ErrorNote error={q.error} what="groups" testId="group-error" />
      {hasKeys && (
        <GroupTable
          rows={shown?.groups ?? []}
          keyAliases={keyAliases}
          keyLabels={keyLabels}
          measureAliases={measureAliases}
          distAliases={distAliases}
          sorting={sorting}
          onSortingChange={setSorting}
          onOpen={(row) => {
            const keys = (groupPart.group_by as { alias: string; key: string; source: string }[]) ?? [];
            onDrill(
              keys
                .filter((k) => row.group_keys[k.alias] !== null && row.group_keys[k.alias] !== undefined)
                .map((k) => ({ field: k.source === 'field' ? k.key : `${k.source}.${k.key}`, value: String(row.group_keys[k.alias]) })),
            );
          }}
        />
      )}
    </div>
  );
}

function curlFor(body: unknown): string {
  const origin = typeof location !== 'undefined' && location.protocol.startsWith('http') ? location.origin : 'http://127.0.0.1:4318';
  return `curl -s ${origin}/agents/spans/query -H 'Content-Type: application/json' -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`;
}
