/**
 * Largest-remainder apportionment: splits an integer total in proportion to weights so that
 * the parts are integers and add up to the total exactly. Ties go to the earlier weight.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  if (sum <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w * total) / sum);
  const parts = exact.map(Math.floor);
  let remaining = total - parts.reduce((a, b) => a + b, 0);
  const order = exact
    .map((value, index) => ({ index, fraction: value - Math.floor(value) }))
    .sort((a, b) => b.fraction - a.fraction || a.index - b.index);
  for (let k = 0; remaining > 0; k = (k + 1) % order.length, remaining--) parts[order[k]!.index]!++;
  return parts;
}
