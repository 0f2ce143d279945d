/**
 * Which history the model still sees. OpenCode's `filterCompacted` walks newest to oldest and
 * stops at the user message that asked for the latest *completed* compaction: an assistant
 * reply with `summary: true`, a finish and no error, whose parent carries a `compaction` part.
 * Only those structured markers count; text is never read for this.
 */
export interface MessageHeader {
  id: string;
  role: 'user' | 'assistant' | 'unknown';
  parentId: string | null;
  /** summary: true, finished, without error. */
  completedSummary: boolean;
  hasCompactionPart: boolean;
}

/** Index of the first message in context (0 when there is no completed compaction). */
export function liveStartIndex(headers: readonly MessageHeader[]): number {
  const completed = new Set<string>();
  for (let i = headers.length - 1; i >= 0; i--) {
    const header = headers[i]!;
    if (header.role === 'user' && header.hasCompactionPart && completed.has(header.id)) return i;
    if (header.role === 'assistant' && header.completedSummary && header.parentId) {
      completed.add(header.parentId);
    }
  }
  return 0;
}

/** Reads a header from a message's info object (already parsed) and its parts. */
export function headerOf(id: string, info: unknown, hasCompactionPart: boolean): MessageHeader {
  const object = typeof info === 'object' && info !== null ? (info as Record<string, unknown>) : {};
  const role = object.role === 'user' || object.role === 'assistant' ? object.role : 'unknown';
  return {
    id,
    role,
    parentId: typeof object.parentID === 'string' ? object.parentID : null,
    completedSummary:
      object.summary === true &&
      typeof object.finish === 'string' &&
      (object.error === undefined || object.error === null),
    hasCompactionPart,
  };
}

export function partsHaveCompaction(parts: unknown): boolean {
  return (
    Array.isArray(parts) &&
    parts.some(
      (part) => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'compaction',
    )
  );
}
