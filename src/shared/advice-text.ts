/**
 * The advice in words, one wording for every view (the web verdict and list, the Markdown export,
 * the CLI, the MCP tool): what a suggestion frees from each later call, what to do with its
 * change, how many calls are left before OpenCode compacts, what the cache saved.
 * Browser-safe and pure.
 */
import { fmt, fmtCost, fmtPct } from './format';
import type { Change, ContextReport, Frees } from './wire';

/**
 * "Frees 1,733 tokens (5.1%) from each later call — $0.0005 a call", "Frees up to 13,901 tokens
 * (40.9%) …" (a bound), "≈752 estimated tokens" while there is no total, "Frees nothing by itself".
 */
export function freesText(frees: Frees, options: { currency?: string; estimatesOnly?: boolean } = {}): string {
  if (frees.tokens <= 0) return 'Frees nothing by itself';
  const tokens = options.estimatesOnly ? `≈${fmt(frees.tokens)} estimated tokens` : `${fmt(frees.tokens)} tokens`;
  const share = frees.percentOfUsed === null ? '' : ` (${fmtPct(frees.percentOfUsed)})`;
  const money =
    frees.costPerCall === undefined ? '' : ` — ${fmtCost(frees.costPerCall, options.currency ?? 'USD')} a call`;
  return `Frees ${frees.upTo ? 'up to ' : ''}${tokens}${share} from each later call${money}`;
}

/** A suggestion's frees in the report's own terms (its currency; estimates while there is no total). */
export const suggestionFrees = (report: ContextReport, frees: Frees): string =>
  freesText(frees, { currency: report.cost?.currency ?? 'USD', estimatesOnly: report.actual === null });

/** What kind of change it is, as a view heads it. */
export const CHANGE_HEADINGS: Record<string, string> = {
  opencode_config: 'OpenCode configuration',
  ask_agent: 'Ask the agent',
  workspace_file: 'Workspace file',
};

/** "Add to opencode.json", "Send the agent", "Shorten AGENTS.md": what to do with a change's text. */
export function changeLead(change: Change): string {
  if (change.kind === 'opencode_config') return `Add to ${change.file ?? 'opencode.json'} (merged with what is there)`;
  if (change.kind === 'ask_agent') return 'Send the agent';
  if (change.kind === 'workspace_file') return change.file ? `Shorten ${change.file}` : 'Change the workspace file';
  return CHANGE_HEADINGS[change.kind] ?? change.kind;
}

export type Headroom = NonNullable<NonNullable<ContextReport['verdict']>['headroom']>;

/**
 * The calls left in two parts — "about 460 more model calls at +291 tokens a call" and the basis,
 * "the growth over calls 25–31, 6 calls" — or why they cannot be counted (`basis` null).
 */
export function callsLeftParts(headroom: Headroom): { text: string; basis: string | null } | null {
  const basis = headroom.callsLeftBasis;
  if (headroom.callsLeft !== null && headroom.callsLeft !== undefined && basis) {
    const n = headroom.callsLeft;
    return {
      text: `about ${fmt(n)} more model ${n === 1 ? 'call' : 'calls'} at +${fmt(basis.perCall)} tokens a call`,
      basis: `the growth over calls ${fmt(basis.fromCall)}–${fmt(basis.toCall)}, ${fmt(basis.calls)} call${basis.calls === 1 ? '' : 's'}`,
    };
  }
  return headroom.callsLeftBecause ? { text: `calls left not known: ${headroom.callsLeftBecause}`, basis: null } : null;
}

/** "about 460 more model calls at +291 tokens a call (the growth over calls 25–31, 6 calls)", or why not. */
export function callsLeftText(headroom: Headroom): string | null {
  const parts = callsLeftParts(headroom);
  return parts && (parts.basis ? `${parts.text} (${parts.basis})` : parts.text);
}

/** "$1.99 saved by the cache (736,256 cached tokens: $2.21 at the input rate, $0.22 billed)". */
export function cacheSavingsText(report: ContextReport): string | null {
  const saved = report.cost?.cacheSavings;
  if (!saved || !report.cost) return null;
  const c = report.cost.currency;
  return `${fmtCost(saved.amount, c)} saved by the cache over the session (${fmt(saved.tokens)} cached tokens: ${fmtCost(saved.atInputRate, c)} at the input rate, ${fmtCost(saved.billed, c)} billed)`;
}
