/**
 * Number formatting for people, shared by the chat, the CLI and the engine's labels so a figure
 * reads the same everywhere. Dependency-free.
 */

// One formatter for all, made on first need: Number#toLocaleString builds a new
// Intl.NumberFormat on every call (~0.1 s over a report of 9 × 200 items), and the first one a
// process makes loads ICU's number data (~10 ms of a CLI start, more than some whole commands).
let numbers: Intl.NumberFormat | undefined;

/** en-US digit groups of a whole number, as Intl.NumberFormat('en-US') writes them (the figures are nearly all whole). */
const grouped = (whole: number): string => {
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+$)/g, ',');
  return whole < 0 ? `-${digits}` : digits;
};

export const fmt = (value: number | null | undefined): string => {
  if (value === null || value === undefined) return '—';
  // -0 is Intl's to write ("-0"); String(-0) is "0".
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) return grouped(value);
  return (numbers ??= new Intl.NumberFormat('en-US')).format(value);
};

/**
 * A share in percent, computed once from integers and rounded once, to one decimal: every view
 * prints this figure as it is (the JSON carries it), so no view rounds twice.
 */
export function percentOf(part: number | null, whole: number | null): number | null {
  if (part === null || whole === null) return null;
  return whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;
}

export const fmtPct = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${value.toFixed(1)}%`;

/** 512 B, 2.2 KB, 84 KB, 1.3 MB: one decimal only while it carries information. */
export function fmtBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

export function fmtDelta(delta: number | null): string {
  if (delta === null) return '';
  if (delta === 0) return '±0';
  return `${delta > 0 ? '+' : '−'}${fmt(Math.abs(delta))}`;
}

/**
 * Money, one rule for every view: whole amounts to the cent ($1.99, $12.40); under one unit, two
 * significant digits ($0.50, $0.029, $0.0058, $0.00012), so a column of small sums reads alike
 * and none rounds to $0.00; zero is $0.00.
 */
export function fmtCost(amount: number, currency: string): string {
  // Rounded first: $0.996 is $1.00, not $1.0.
  const small = amount !== 0 && Math.abs(Number(amount.toPrecision(2))) < 1;
  const options: Intl.NumberFormatOptions = small
    ? { minimumSignificantDigits: 2, maximumSignificantDigits: 2 }
    : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, ...options }).format(amount);
  } catch {
    // A currency code Intl does not know: the figure, then the code.
    return `${new Intl.NumberFormat('en-US', options).format(amount)} ${currency}`;
  }
}
