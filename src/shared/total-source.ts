/**
 * Where a report's total comes from, in the words every view prints (the web's figure and
 * fine print, the CLI, the Markdown copy, the MCP summary): the agent's ACP usage_update, or —
 * where none was recorded (a session imported from an OpenCode export) — the prompt of the last
 * measured model call as the provider counted it (`actual.source`, contract §8).
 */
import type { ContextReport } from './wire';

type Totalled = Pick<ContextReport, 'actual' | 'asOf' | 'calibration'>;

/** The total's origin in a few words, after the figure: "as the agent reported it". Null without a total. */
export function totalSourceShort(report: Totalled): string | null {
  if (!report.actual) return null;
  if (report.asOf) return "that call's prompt, as the provider counted it";
  if (report.actual.source === 'provider') return "the last model call's prompt, as the provider counted it";
  return 'as the agent reported it';
}

/** The total's origin in one sentence (fine print, footers). Null without a total. */
export function totalSourceSentence(report: Totalled): string | null {
  const { actual } = report;
  if (!actual) return null;
  if (report.asOf) return `The total is model call ${report.asOf.call}'s prompt, as the provider counted it.`;
  if (actual.source === 'provider') {
    const call = report.calibration?.reference?.call;
    return `The total is the prompt of ${call ? `model call ${call}, ` : ''}the last the provider counted (${actual.recordedAt}): the agent reported no total of its own for this session, which did not run here.`;
  }
  return `The total is the last one the agent reported itself (its usage update over ACP, the Agent Client Protocol, ${actual.recordedAt}).`;
}
