/**
 * The one way the app shows a time: relative ("3 min ago", "2 days ago"), the exact time on hover
 * (and in `dateTime` for assistive technology). Every shown time ticks together, twice a minute.
 */
import { useSyncExternalStore } from 'react';

const TICK_MS = 30_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    // The first subscriber after a quiet spell: the time moved on meanwhile.
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

const getNow = () => now;

/** The current time, updated every 30 s (one timer for the whole page). */
export function useNow(): number {
  return useSyncExternalStore(subscribe, getNow, getNow);
}

const absolute = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});
const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });
const dayYear = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** "Sat, 28 Nov 2026, 02:58:00 UTC". */
export const absoluteTime = (ms: number): string => absolute.format(ms);

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", "28 Nov", "28 Nov 2025"; "in 5 min" ahead. */
export function relativeTime(ms: number, reference: number): string {
  const seconds = Math.round((reference - ms) / 1000);
  const ahead = seconds < 0;
  const s = Math.abs(seconds);
  const words = (n: number, unit: string) => (ahead ? `in ${n} ${unit}` : `${n} ${unit} ago`);
  if (s < 45) return 'just now';
  if (s < 3600) return words(Math.max(1, Math.round(s / 60)), 'min');
  if (s < 86_400) return words(Math.round(s / 3600), 'h');
  const days = Math.round(s / 86_400);
  if (days === 1) return ahead ? 'tomorrow' : 'yesterday';
  if (days < 7) return words(days, 'days');
  return new Date(ms).getFullYear() === new Date(reference).getFullYear() ? day.format(ms) : dayYear.format(ms);
}

export function RelativeTime({ at, className }: { at: number | string; className?: string }) {
  const reference = useNow();
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return null;
  return (
    <time className={className} dateTime={new Date(ms).toISOString()} title={absoluteTime(ms)}>
      {relativeTime(ms, reference)}
    </time>
  );
}
