/** How far an import has read, on a terminal's standard error. */
import { statSync } from 'node:fs';
import type { Io } from '../program/io';
import type { Progress } from './import-side';

/**
 * One line on a terminal's stderr, rewritten in place at most a few times a second — and at once when the
 * phase or the file changes, so a quick file still says it was written.
 */
export function progressLine(io: Io): { update: Progress; clear: () => void } {
  let last = 0;
  let lastStep = '';
  let shown = false;
  const sizes = new Map<string, number>();
  const mb = (n: number) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return {
    update: (phase, source, bytes) => {
      const now = Date.now();
      const step = `${phase}\0${source.path}`;
      if (step === lastStep && now - last < 250) return;
      last = now;
      lastStep = step;
      let size = sizes.get(source.path);
      if (size === undefined) sizes.set(source.path, (size = statSync(source.path).size));
      io.status?.(`${phase === 'checking' ? 'Checking' : 'Writing'} ${source.name}: ${mb(bytes)} of ${mb(size)}`);
      shown = true;
    },
    clear: () => {
      if (shown) io.status?.(null);
      shown = false;
    },
  };
}
