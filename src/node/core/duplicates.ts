/**
 * The same content read again while still in context: same path (and range) and same content.
 * A file read again after it changed is a new read, not a duplicate. Pure.
 */
import type { Item } from './types';

export interface DuplicateMark {
  /** How many times this content is in context. */
  reads: number;
  /** 1 for the first read, 2 for the second, … */
  ordinal: number;
}

export function duplicateGroups(items: readonly Item[]): Map<Item, DuplicateMark> {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    if (!item.readKey || item.contentKey === undefined) continue;
    const key = `${item.readKey}\u0000${item.contentKey}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const marks = new Map<Item, DuplicateMark>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.forEach((item, i) => marks.set(item, { reads: group.length, ordinal: i + 1 }));
  }
  return marks;
}
