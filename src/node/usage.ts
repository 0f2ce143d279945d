/**
 * The agent-reported context total: the newest ACP usage_update of a session. Rows from other
 * writers (e.g. 'evidence_postpass') never count; rows with unusable numbers are skipped with a
 * warning. Shared by the usage API (context meter: report/latest-total.ts) and the report.
 */
import type { UsageInput as LatestUsage } from './core';
import type { NewUsage, ReadSnapshot, UsageRow } from './storage/store';

export type { LatestUsage };
export { percentOfWindow, totalOnWire } from './core';

export async function latestAcpUsage(
  read: Pick<ReadSnapshot, 'acpUsageNewestFirst'>,
  workspaceId: string,
  sessionId: string,
  warnings: string[] = [],
): Promise<LatestUsage | null> {
  return usableUsage(await read.acpUsageNewestFirst(workspaceId, sessionId), warnings);
}

/** The first usable row of a newest-first list. */
export function usableUsage(rows: readonly UsageRow[], warnings: string[]): LatestUsage | null {
  for (const row of rows) {
    const used = row.context_used;
    if (used === null || !Number.isSafeInteger(used) || used < 0) {
      warnings.push(`interaction_token_usage/${row.id}: context_used ${String(used)} is not a usable count; skipped`);
      continue;
    }
    // A prompt always holds at least the runtime's system prompt: 0 means nothing was measured.
    // OpenCode sends it after a turn whose last model call failed or was cancelled.
    if (used === 0) {
      warnings.push(
        `interaction_token_usage/${row.id}: context_used 0 (the agent's last call measured nothing: it failed or was cancelled); the previous total is used`,
      );
      continue;
    }
    if (!Number.isFinite(row.created_at)) {
      warnings.push(`interaction_token_usage/${row.id}: created_at ${String(row.created_at)} is not a time; skipped`);
      continue;
    }
    let size = row.context_size;
    if (size !== null && (!Number.isSafeInteger(size) || size <= 0)) {
      warnings.push(
        `interaction_token_usage/${row.id}: context_size ${String(size)} is not a window size; percent not shown`,
      );
      size = null;
    } else if (size !== null && used > size) {
      warnings.push(`interaction_token_usage/${row.id}: context_used ${used} exceeds context_size ${size}`);
    }
    const cost =
      typeof row.cost_amount === 'number' && Number.isFinite(row.cost_amount)
        ? { amount: row.cost_amount, currency: row.cost_currency || 'USD' }
        : null;
    return { contextUsed: used, contextSize: size, recordedAt: row.created_at, cost };
  }
  return null;
}

/** An ACP usage_update as the row that keeps it (source `acp`; the cost is the session's, cumulative). */
export function acpUsageRow(
  workspaceId: string,
  sessionId: string,
  update: { used: number; size: number; cost?: { amount: number; currency: string } | null },
  createdAt: number,
): NewUsage {
  return {
    workspaceId,
    sessionId,
    source: 'acp',
    contextUsed: update.used,
    contextSize: update.size,
    costAmount: update.cost?.amount ?? null,
    costCurrency: update.cost?.currency ?? null,
    createdAt,
  };
}
