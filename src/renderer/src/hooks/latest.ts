import { useLayoutEffect, useRef, type RefObject } from 'react';

/**
 * A ref holding the latest `value`, for a listener bound once (window keys, drag and drop, the
 * event stream) that must call the caller's current closure. Updated after each commit, not during
 * render: React may render and throw away a render, whose closure must not be the one called.
 */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
