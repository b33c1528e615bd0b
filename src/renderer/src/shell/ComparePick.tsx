/**
 * Picking two traces to compare. "Compare" on a trace or a turn picks it; the same on another trace
 * of the project opens both side by side (pages/compare). While one is picked, a bar says so and
 * offers to cancel. The pick lives in the UI store (not persisted).
 */
import { useNavigate } from 'react-router-dom';
import { projectPath, useProject } from '../hooks/project';
import { useUi } from '../stores/ui';

export function useComparePick(): { picked: string | null; compare(traceId: string): void } {
  const project = useProject();
  const pick = useUi((s) => s.comparePick);
  const setPick = useUi((s) => s.setComparePick);
  const navigate = useNavigate();
  const picked = pick && pick.project === project ? pick.traceId : null;
  return {
    picked,
    compare(traceId) {
      if (!picked || picked === traceId) {
        setPick({ project, traceId });
        return;
      }
      setPick(null);
      void navigate(`${projectPath(project, 'compare')}?a=${encodeURIComponent(picked)}&b=${encodeURIComponent(traceId)}`);
    },
  };
}

/** A button that picks this trace, or compares it with the one picked. */
export function CompareButton({ traceId, className }: { traceId: string; className?: string }) {
  const { picked, compare } = useComparePick();
  const label = !picked ? 'Compare…' : picked === traceId ? 'Picked to compare' : 'Compare with picked';
  return (
    <button className={className} onClick={() => compare(traceId)} disabled={picked === traceId} data-testid="compare-button" title={picked && picked !== traceId ? `Compare trace ${picked} (A) with this one (B)` : 'Pick this trace, then another, to see both side by side'}>
      {label}
    </button>
  );
}

export function ComparePickBar() {
  const project = useProject();
  const pick = useUi((s) => s.comparePick);
  const setPick = useUi((s) => s.setComparePick);
  if (!pick || pick.project !== project) return null;
  return (
    <div className="compare-pick-bar" role="status" data-testid="compare-pick-bar">
      Trace <span className="mono">{pick.traceId.slice(0, 16)}…</span> is picked for a comparison: open another trace or turn and choose “Compare with picked”.
      <button onClick={() => setPick(null)}>Cancel</button>
    </div>
  );
}
