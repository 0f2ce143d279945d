/**
 * Whether the page is as narrow as a phone (the stylesheet's one breakpoint, 640 px). Used where
 * a narrow layout must leave something out of the markup, not only hide it: a table column
 * hidden by CSS still counts in its rows' colspan and keeps a column's width.
 */
import { useSyncExternalStore } from 'react';

export const NARROW_QUERY = '(max-width: 640px)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia?.(NARROW_QUERY);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

const snapshot = () => window.matchMedia?.(NARROW_QUERY).matches ?? false;

export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, snapshot, () => false);
}
