/**
 * Whether a stored row already holds a message an import would write: what keeps a second
 * import of the same file from writing anything, for every runtime's import.
 */
import { columnText } from '../storage/column-text';
import type { MessageRow, NewMessage } from '../storage/store';

/**
 * Whether a stored row already holds this message: the same times and the same JSON (compared
 * as values — PostgreSQL's JSONB gives back its own key order and spacing, and keeps U+0000 as
 * U+FFFD).
 */
export function same(
  stored: MessageRow,
  next: Pick<NewMessage, 'timeCreated' | 'timeUpdated' | 'info' | 'parts'>,
): boolean {
  if (Number(stored.time_created) !== next.timeCreated || Number(stored.time_updated) !== next.timeUpdated)
    return false;
  const sameColumn = (column: unknown, value: unknown) => {
    const text = columnText(column).text;
    // As written (SQLite keeps the text), else as values (JSONB).
    return text === JSON.stringify(value) || canonical(parse(text)) === canonical(value);
  };
  return sameColumn(stored.info, next.info) && sameColumn(stored.parts, next.parts);
}

function parse(text: string | null): unknown {
  try {
    return JSON.parse(text ?? 'null');
  } catch {
    return undefined;
  }
}

/** JSON with sorted keys and NUL as U+FFFD: equal for equal values whatever the database did. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : typeof v === 'string'
        ? v.replaceAll('\u0000', '\ufffd')
        : v,
  );
}
