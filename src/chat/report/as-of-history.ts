/**
 * Which call a report on the page is shown as of, kept in the browser's history: choosing a call
 * is a step of its own (Back returns to the current context, Forward to the call again), made
 * with the History API's state alone — never the URL's path or query — so the report stays
 * local-only: a reload finds no report to show it in (the transcript is memory only), and nothing
 * brings the view back from a URL. Each page load marks its own entries, so a state an earlier
 * load left behind (a reload, then Back) means nothing to this one.
 */
import { useLocation, useNavigate } from 'react-router';

const KEY = 'investibookAsOf';

/** This page load's mark (random; crypto.getRandomValues works outside secure contexts too). */
const LOAD = Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(36)).join('');

interface AsOfState {
  load: string;
  /** By report (the transcript entry showing it): the call it is shown as of. */
  calls: Record<string, number>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The calls this load's history entry holds; an earlier load's, or none, is the current context everywhere. */
function callsOf(state: unknown): Record<string, number> {
  const mine = isRecord(state) ? state[KEY] : undefined;
  if (!isRecord(mine) || mine.load !== LOAD || !isRecord(mine.calls)) return {};
  return Object.fromEntries(
    Object.entries(mine.calls).filter((entry): entry is [string, number] => Number.isInteger(entry[1])),
  );
}

/**
 * The call report `key` is shown as of (null: the current context), and a way to choose another:
 * each choice pushes a history entry with the same URL and the new state.
 */
export function useAsOfCall(key: string): [number | null, (call: number | null) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const calls = callsOf(location.state);
  const call = calls[key] ?? null;
  const choose = (next: number | null) => {
    if (next === call) return;
    const { [key]: _left, ...others } = calls;
    const mine: AsOfState = { load: LOAD, calls: next === null ? others : { ...others, [key]: next } };
    const state = { ...(isRecord(location.state) ? location.state : {}), [KEY]: mine };
    void navigate({ pathname: location.pathname, search: location.search, hash: location.hash }, { state });
  };
  return [call, choose];
}
