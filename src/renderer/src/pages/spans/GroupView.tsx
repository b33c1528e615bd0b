/**
 * Group mode: edit a draft spec in the builder, Apply runs it (so half-typed keys never hit the
 * server), results in GroupTable. The exact request is shown (and copyable as curl) so what is on
 * screen can be reproduced against POST /agents/spans/query. The applied spec and the order come
 * from the page's link (SpansPage, urlState.ts); Apply also remembers the spec for the project.
 */
import { useMemo, useState } from 'react';
import type { SortingState } from '@tanstack/react-table';
import { useOp } from '../../api/query';
import { GroupBuilder } from './GroupBuilder';
import { scoreField } from './expr';
import { useScoreNames } from '../../scores/useScores';
import { GroupTable } from './GroupTable';
import { groupRequestPart, type GroupSpec } from './groupModel';
import { useSpansUi } from './spansStore';
import { ErrorNote } from '../../components/ErrorNote';
import { useResetOnChange } from '../../hooks/reset';
import { fixedTotalOf, measureKind } from './measureFormat';
import type { GroupState } from './urlState';

const LIMIT = 1000;
const NONE: GroupSpec['measures'] = [];
const NO_DISTS: GroupSpec['distributions'] = [];
/** The fixed totals a group order may name (semantics §7). */
const FIXED_SORTS = new Set(['span_count', 'invocation_count', 'error_count', 'conversation_count', 'total_input_tokens', 'total_output_tokens', 'total_cost_usd', 'total_duration_ms', 'last_seen', 'first_seen']);

export interface GroupViewProps {
  project: string;
  filterPart: Record<string, unknown>;
  /** The applied grouping and order (from the link). */
  spec: GroupSpec;
  sorting: SortingState;
  onChange(g: GroupState): void;
  onDrill(conds: { field: string; value: string }[]): void;
}

export function GroupView({ project, filterPart, spec: applied, sorting, onChange, onDrill }: GroupViewProps) {
  const setSaved = useSpansUi((s) => s.setGroupSpec);
  const scoreNames = useScoreNames(project);
  const appliedKey = JSON.stringify(applied);
  const [draft, setDraft] = useState<GroupSpec>(applied);
  // Another grouping arrived through the link (back/forward, a pasted link): the builder shows it.
  useResetOnChange([appliedKey], () => setDraft(applied));
  const dirty = JSON.stringify(draft) !== appliedKey;
  const setSorting = (s: SortingState) => onChange({ spec: applied, sorting: s });
  const apply = () => {
    setSaved(project, draft);
    // Orders by a column the new grouping no longer has are dropped.
    const part = groupRequestPart(draft) as { group_by?: { alias: string }[]; measures?: { alias: string }[] };
    const ids = new Set([...(part.group_by ?? []), ...(part.measures ?? [])].map((x) => x.alias));
    onChange({ spec: draft, sorting: sorting.filter((s) => ids.has(s.id) || FIXED_SORTS.has(s.id)) });
  };

  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by value: the page passes an equal spec as a new object on every render
  const groupPart = useMemo(() => groupRequestPart(applied), [appliedKey]);
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
  const measureSpecs = (groupPart.measures as GroupSpec['measures'] | undefined) ?? NONE;
  const distSpecs = (groupPart.group_distributions as GroupSpec['distributions'] | undefined) ?? NO_DISTS;
  const measureAliases = measureSpecs.map((m) => m.alias);
  const distAliases = distSpecs.map((d) => d.alias);
  const measures = useMemo(() => measureSpecs.map((m) => ({ alias: m.alias, kind: measureKind(m) })), [measureSpecs]);
  const dists = useMemo(() => distSpecs.map((d) => ({ alias: d.alias, integer: d.value.source === 'custom_attrs_int' })), [distSpecs]);
  const hiddenTotals = useMemo(() => measureSpecs.map(fixedTotalOf).filter((t): t is string => t !== null), [measureSpecs]);
  // While a changed grouping loads, the previous answer (kept as placeholder) has other columns: its
  // rows under the new header would read "(none)" everywhere. Show them only if they fit the header.
  const fits = (g: { group_keys: Record<string, unknown>; metrics: Record<string, unknown>; distributions: Record<string, unknown> }) =>
    keyAliases.every((a) => a in g.group_keys) && measureAliases.every((a) => a in g.metrics) && distAliases.every((a) => a in g.distributions);
  const shown = q.data && (!q.isPlaceholderData || q.data.groups.every(fits)) ? q.data : undefined;

  return (
    <div className="group-view">
      <GroupBuilder spec={draft} onChange={setDraft} scoreNames={scoreNames} />
      <div className="toolbar">
        <button className="primary" onClick={apply} disabled={!dirty} data-testid="apply-group">Apply</button>
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
          measures={measures}
          dists={dists}
          hiddenTotals={hiddenTotals}
          sorting={sorting}
          onSortingChange={setSorting}
          onOpen={(row) => {
            const keys = (groupPart.group_by as { alias: string; key: string; source: string }[]) ?? [];
            onDrill(
              keys
                .filter((k) => row.group_keys[k.alias] !== null && row.group_keys[k.alias] !== undefined)
                .map((k) => ({ field: k.source === 'field' ? k.key : k.source === 'score' ? scoreField(k.key) : `${k.source}.${k.key}`, value: String(row.group_keys[k.alias]) })),
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
