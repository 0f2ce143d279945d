/**
 * Bounds the timeline of model calls to at most `max` points for the wire: the first and last
 * calls, every call with an event (compaction, pruning, a skill load, an overhead change) and the
 * biggest jumps are kept; the rest is sampled evenly. Pure.
 */
import type { TimelinePoint } from './types';

export const MAX_TIMELINE_POINTS = 200;

export function downsample(points: readonly TimelinePoint[], max = MAX_TIMELINE_POINTS): TimelinePoint[] {
  if (points.length <= max) return [...points];
  const keep = new Set<number>([0, points.length - 1]);
  const byJump = points
    .map((p, i) => ({
      i,
      jump: Math.abs(p.promptTokens - (points[i - 1]?.promptTokens ?? 0)),
      events: p.events.length,
    }))
    .sort((a, b) => b.events - a.events || b.jump - a.jump);
  for (const { i } of byJump) {
    if (keep.size >= max / 2) break;
    keep.add(i);
  }
  const step = points.length / (max - keep.size);
  for (let x = 0; keep.size < max && x < points.length; x += step) keep.add(Math.floor(x));
  return [...keep].sort((a, b) => a - b).map((i) => points[i]!);
}
