/**
 * A JSON column (`info`, `parts`) as text. The program writes text; other writers may leave a
 * BLOB (read as UTF-8) or a number where text belongs (no text). `odd` says which, for a warning.
 */
export function columnText(value: unknown): { text: string | null; odd?: string } {
  if (typeof value === 'string') return { text: value };
  if (value instanceof Uint8Array)
    return { text: new TextDecoder().decode(value), odd: 'is stored as a BLOB; read as UTF-8' };
  if (value === null || value === undefined) return { text: null };
  return { text: null, odd: `is stored as a ${typeof value}, not JSON text` };
}
