/**
 * Find in trace. Names, operations, agents, tools, models, services and span ids are matched here,
 * over the waterfall's spans; attribute values and message text live on the server, so the same term
 * also goes to 'spans.query' restricted to this trace: with the full-text `$search` operator when
 * the server has it (message text and attribute values), else `$contains` over the text columns the
 * query language offers (error type and message, tool arguments and results, reasoning, ids…).
 * Matches are listed in display order; n / N (or Enter / Shift+Enter in the box) step through them.
 */
import { useEffect, useMemo, useState, type RefObject } from 'react';
import { useQuery } from '@tanstack/react-query';
import { call } from '../api/client';
import { ServiceError } from '../../../shared/errors';
import { findMatches, type Node } from './model';
import type { SpanRow } from '../api/views';

/** Text columns `$contains` can read (shared/contract catalog) that hold what people search for. */
const TEXT_FIELDS = ['status_message', 'error_type', 'tool_call_arguments', 'tool_call_result', 'reasoning_content', 'compaction_summary',
  'conversation_id', 'conversation_name', 'response_id', 'agent_description', 'tool_description', 'tool_call_id', 'svc_user_id'];

/** null: not known yet; the first 422 naming $search switches to $contains for the session. */
let searchOperator: boolean | null = null;

function serverQuery(traceId: string, term: string, withSearch: boolean) {
  const contains = TEXT_FIELDS.map((f) => ({ $contains: { input: { $getField: f }, substr: { $literal: term }, case_insensitive: true } }));
  const any = withSearch ? [{ $search: term }, ...contains] : contains;
  return { $expr: { $and: [{ $eq: [{ $getField: 'trace_id' }, { $literal: traceId }] }, { $or: any }] } };
}

async function serverMatches(project: string, traceId: string, term: string): Promise<string[]> {
  const run = (withSearch: boolean) =>
    call('spans.query', { project_id: project, query: serverQuery(traceId, term, withSearch), limit: 2000, sort_by: [{ field: 'started_at', direction: 'asc' }] });
  if (searchOperator !== false) {
    try {
      const r = await run(true);
      searchOperator = true;
      return (r.spans as SpanRow[]).map((s) => s.span_id!);
    } catch (e) {
      if (!(e instanceof ServiceError && e.status === 422 && /\$search/.test(e.message))) throw e;
      searchOperator = false;
    }
  }
  return ((await run(false)).spans as SpanRow[]).map((s) => s.span_id!);
}

export interface TraceFind {
  /** Matching span ids in display order. */
  ids: string[];
  set: ReadonlySet<string>;
  /** The server part is still being asked. */
  pending: boolean;
  /** Matches only the server found (in attributes or messages). */
  serverOnly: number;
}

export function useTraceFind(project: string, traceId: string, order: Node[], term: string): TraceFind {
  const [debounced, setDebounced] = useState(term);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(term.trim()), 250);
    return () => clearTimeout(t);
  }, [term]);
  const q = useQuery({
    queryKey: ['trace.find', { project_id: project, trace_id: traceId, term: debounced }],
    queryFn: () => serverMatches(project, traceId, debounced),
    enabled: debounced.length >= 2,
    staleTime: 60_000,
  });
  return useMemo(() => {
    const server = new Set(q.data ?? []);
    const ids = findMatches(order, debounced, server);
    const local = new Set(findMatches(order, debounced));
    return { ids, set: new Set(ids), pending: q.isFetching, serverOnly: ids.filter((id) => !local.has(id)).length };
  }, [order, debounced, q.data, q.isFetching]);
}

/** The find box with "3 of 17" and previous / next. */
export function FindBar(props: {
  inputRef: RefObject<HTMLInputElement | null>;
  term: string;
  onTerm(t: string): void;
  find: TraceFind;
  currentId: string | null;
  order: Node[];
  onStep(dir: 1 | -1): void;
}) {
  // Destructured: React's compiler checks take any read of a props object holding a ref as a ref read.
  const { find, term, currentId, inputRef, onTerm, onStep } = props;
  const pos = currentId ? find.ids.indexOf(currentId) : -1;
  return (
    <span className="find-bar" role="search">
      <input
        ref={inputRef}
        type="search"
        placeholder="Find in trace (f)"
        aria-label="Find in trace"
        data-testid="trace-find"
        value={term}
        onChange={(e) => onTerm(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') { e.preventDefault(); onStep(e.shiftKey ? -1 : 1); }
          // A search field clears itself on Esc; here Esc only leaves the box, so n / N keep stepping through the matches.
          if (e.key === 'Escape') e.preventDefault();
        }}
      />
      {term.trim().length > 0 && (
        <span className="muted find-count" data-testid="find-count" aria-live="polite">
          {find.ids.length === 0 ? (find.pending ? 'searching…' : 'no match') : `${pos >= 0 ? `${pos + 1} of ` : ''}${find.ids.length} match${find.ids.length === 1 ? '' : 'es'}`}
          {find.serverOnly > 0 && <span title="found in attributes or message text"> ({find.serverOnly} in content)</span>}
        </span>
      )}
      <button onClick={() => onStep(-1)} disabled={!find.ids.length} aria-label="Previous match" title="Previous match (N)">↑</button>
      <button onClick={() => onStep(1)} disabled={!find.ids.length} aria-label="Next match" title="Next match (n)" data-testid="find-next">↓</button>
    </span>
  );
}
