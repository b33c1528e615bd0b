import { useState } from 'react';

/**
 * Runs `reset` (state setters) during render when any of `deps` changed since the last render —
 * React's "adjusting state when a prop changes": the stale state is never painted, and no effect
 * runs only to render a second time. Not on the first render: state starts from the props there.
 */
export function useResetOnChange(deps: readonly unknown[], reset: () => void): void {
  const [prev, setPrev] = useState(deps);
  if (prev.length !== deps.length || prev.some((d, i) => !Object.is(d, deps[i]))) {
    setPrev(deps);
    reset();
  }
}
