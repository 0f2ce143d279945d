/**
 * Tables that fit the terminal (issue 39): the column widths that bring a table within `width`
 * columns by narrowing its text columns — widest first, never below a floor — while the figures
 * keep their natural width. cli-table3 then cuts a cell that is too long with an ellipsis, by
 * display width (its string-width, the one measured here: a CJK character counts 2).
 */
import stringWidth from 'string-width';

/** The columns a table may use: the terminal's, else $COLUMNS, else 100. */
export function terminalColumns(columns: number | undefined, env: NodeJS.ProcessEnv): number {
  if (columns && columns > 0) return columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

/** A column's width as cli-table3 lays it out: its widest line plus a space either side. */
const natural = (cells: readonly string[]): number =>
  Math.max(
    0,
    ...cells.flatMap((cell) =>
      String(cell)
        .split('\n')
        .map((line) => stringWidth(line)),
    ),
  ) + 2;

/** A text column never narrower than this (with its padding): a label cut shorter says nothing. */
export const TEXT_FLOOR = 12;

/**
 * cli-table3's `colWidths` for `rows` (the head among them) within `width`, narrowing the
 * columns in `text`; undefined when the table fits as it is, or `width` is null (--wide).
 */
export function fitWidths(
  rows: readonly (readonly string[])[],
  text: readonly number[],
  width: number | null,
): number[] | undefined {
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, i) => natural(rows.map((r) => r[i] ?? '')));
  const borders = count + 1;
  let excess = widths.reduce((a, b) => a + b, 0) + borders - (width ?? Infinity);
  if (excess <= 0) return undefined;
  while (excess > 0) {
    const widest = text.filter((i) => widths[i]! > TEXT_FLOOR).sort((a, b) => widths[b]! - widths[a]!)[0];
    if (widest === undefined) break; // as narrow as it goes: the caller leaves columns out
    // Down to the next widest text column (one at a time when they are even), never below the floor.
    const target = Math.max(TEXT_FLOOR, ...text.filter((i) => i !== widest).map((i) => widths[i]!));
    const cut = Math.min(excess, Math.max(1, widths[widest]! - target));
    widths[widest] = widths[widest]! - cut;
    excess -= cut;
  }
  return widths;
}

/** How wide a table of these widths is, borders included. */
export const tableWidth = (widths: readonly number[]): number => widths.reduce((a, b) => a + b, 0) + widths.length + 1;
