/**
 * Which report a region belongs to, for its accessible name: two reports on one page (a
 * subagent's beside its parent's, one as of a call) must not share "Context breakdown" or
 * "Suggestions" (axe `landmark-unique`), so each region adds its report's session and as-of.
 */
import { createContext, useContext } from 'react';

export const ReportNameContext = createContext('');

/** " — the session's title, as of call 5": what a region of this report adds to its name. */
export const useReportName = (): string => {
  const which = useContext(ReportNameContext);
  return which ? ` — ${which}` : '';
};
