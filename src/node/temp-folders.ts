/**
 * The private temporary folders an import or `--export` makes (`investibook-import-*`,
 * `investibook-export-*` in the system's temporary folder) are removed when the command ends;
 * a run killed with -9 cannot, so the next run (or server start) removes those of this user
 * older than an hour — no run lasts that long without its folder in use.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEMP_PREFIXES = ['investibook-import-', 'investibook-export-'] as const;
const STALE_MS = 60 * 60 * 1000;

/** Removes this user's stale temporary folders; never fails (a sweep is housekeeping). */
export function sweepStaleTemp(now = Date.now(), folder = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!TEMP_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const path = join(folder, name);
    try {
      const stats = statSync(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      if (now - stats.mtimeMs < STALE_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}
