/**
 * How deep a parsed JSON value nests, found without recursion (a hostile row nested thousands of
 * levels deep would overflow the stack of any recursive walk, JSON.stringify's included).
 */

/** OpenCode's own parts nest about ten levels; tool inputs written by a model a few more. */
export const MAX_JSON_DEPTH = 100;

/** Whether `value` nests deeper than `max` levels of arrays and objects. Stops at the first too-deep branch. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
