/**
 * The advice in words, one wording for every view (the web verdict and list, the Markdown export,
 * the CLI, the MCP tool): what a suggestion frees from the next call on, what it avoids later,
 * what it costs once, what to do with its change, how many calls are left before OpenCode compacts, what the cache saved.
 * Browser-safe and pure.
 */
import { fmt, fmtCost, fmtPct } from './format';
import type { Change, ContextReport, Frees, Suggestion } from './wire';

/** What a suggestion says besides its frees: what it avoids later, its one-time price, whether it pays back. */
export type SuggestionPrice = Pick<Suggestion, 'avoids' | 'oneTime' | 'breakEvenCalls' | 'paysBack'>;

const AVOIDS_PER: Record<string, string> = {
  're-read': 'each time it would be read again',
  load: 'each time it would be loaded again',
  call: "in each call from the agent's next start",
};

/**
 * "Frees 1,733 tokens (5.1%) from the next call on — $0.0005 a call", "Frees ≈14,947 tokens
 * (44.0%, estimated) …", "Frees up to …" (a bound), "≈752 estimated tokens" while there is no
 * total; for a change that only prevents growth, "Frees nothing now; avoids 13,914 tokens each
 * time it would be read again"; then its one-time price and whether it pays back.
 */
export function freesText(
  frees: Frees,
  options: { currency?: string; estimatesOnly?: boolean } = {},
  price: SuggestionPrice = {},
): string {
  const currency = options.currency ?? 'USD';
  const head = freesHead(frees, options.estimatesOnly === true, currency, price);
  const cost = priceText(price, currency);
  return cost ? `${head}; ${cost}` : head;
}

function freesHead(frees: Frees, estimatesOnly: boolean, currency: string, price: SuggestionPrice): string {
  if (frees.tokens <= 0) {
    const avoids = price.avoids;
    return avoids && avoids.tokens > 0
      ? `Frees nothing now; avoids ${fmt(avoids.tokens)} tokens ${AVOIDS_PER[avoids.per] ?? `per ${avoids.per}`}`
      : 'Frees nothing by itself';
  }
  const approx = estimatesOnly || frees.estimate ? '≈' : '';
  const tokens = estimatesOnly ? `≈${fmt(frees.tokens)} estimated tokens` : `${approx}${fmt(frees.tokens)} tokens`;
  const marks = [
    ...(frees.percentOfUsed === null ? [] : [fmtPct(frees.percentOfUsed)]),
    ...(frees.estimate && !estimatesOnly ? ['estimated'] : []),
  ];
  const share = marks.length ? ` (${marks.join(', ')})` : '';
  const money = frees.costPerCall === undefined ? '' : ` — ${fmtCost(frees.costPerCall, currency)} a call`;
  return `Frees ${frees.upTo ? 'up to ' : ''}${tokens}${share} from the next call on${money}`;
}

/** "costs $0.087 once (32,227 tokens read uncached), paid back after 168 calls — more than the session is likely to run". */
function priceText(price: SuggestionPrice, currency: string): string | null {
  const once = price.oneTime;
  if (!once) return null;
  if (once.tokens === 0) return 'costs nothing extra once (the prompt before it stays cached)';
  const what = `${fmt(once.tokens)} tokens read uncached`;
  const cost = once.cost === undefined ? `costs ${what} once` : `costs ${fmtCost(once.cost, currency)} once (${what})`;
  if (price.paysBack === false)
    return price.breakEvenCalls === undefined
      ? `${cost}, which what it frees never pays back`
      : `${cost}, paid back after ${fmt(price.breakEvenCalls)} calls — more than the session is likely to run`;
  return price.breakEvenCalls === undefined
    ? cost
    : `${cost}, paid back after ${fmt(price.breakEvenCalls)} call${price.breakEvenCalls === 1 ? '' : 's'}`;
}

/** A suggestion's frees in the report's own terms (its currency; estimates while there is no total), with its price. */
export const suggestionFrees = (report: ContextReport, frees: Frees, price: SuggestionPrice = {}): string =>
  freesText(frees, { currency: report.cost?.currency ?? 'USD', estimatesOnly: report.actual === null }, price);

/** What kind of change it is, as a view heads it. */
export const CHANGE_HEADINGS: Record<string, string> = {
  opencode_config: 'OpenCode configuration',
  ask_agent: 'Ask the agent',
  workspace_file: 'Workspace file',
  compact: 'Compact the session',
  new_session: 'New session',
  revert: 'Revert',
};

/** "Add to opencode.json", "Send the agent", "Shorten AGENTS.md": what to do with a change's text. */
export function changeLead(change: Change): string {
  if (change.kind === 'opencode_config') return `Add to ${change.file ?? 'opencode.json'} (merged with what is there)`;
  if (change.kind === 'ask_agent') return 'Send the agent';
  if (change.kind === 'workspace_file') return change.file ? `Shorten ${change.file}` : 'Change the workspace file';
  if (change.kind === 'new_session') return 'Start a new session with this hand-off';
  if (change.kind === 'compact') return 'Compact';
  if (change.kind === 'revert') return 'Revert';
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
    const range =
      basis.range && basis.range.low !== basis.range.high
        ? `, between ${fmt(basis.range.low)} and ${fmt(basis.range.high)},`
        : '';
    return {
      text: `about ${fmt(n)} more model ${n === 1 ? 'call' : 'calls'}${range} at +${fmt(basis.perCall)} tokens a call`,
      basis: `the median growth over calls ${fmt(basis.fromCall)}–${fmt(basis.toCall)}, ${fmt(basis.calls)} step${basis.calls === 1 ? '' : 's'}`,
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
