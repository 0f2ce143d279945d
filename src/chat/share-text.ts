/**
 * A share as text, rounded once, to one decimal: never "100.0%" for less than all, never "0.0%"
 * for more than none. The meter, the report and its Markdown all use it.
 */
export function shareText(part: number, whole: number): string {
  if (whole <= 0 || part <= 0) return '0%';
  if (part >= whole) return part === whole ? '100%' : `${((part / whole) * 100).toFixed(1)}%`;
  const rounded = ((part / whole) * 100).toFixed(1);
  if (rounded === '100.0') return '>99.9%';
  if (rounded === '0.0') return '<0.1%';
  return `${rounded}%`;
}
