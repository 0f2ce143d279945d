/**
 * bin/investibook.js keeps V8's young generation at its initial 1 MB semi-space for the CLI's
 * one-shot commands (`--semi-space-growth-factor=1`, set before anything loads: why there).
 * `investibook serve` runs for hours and makes report after report, where V8's default growth
 * (a factor of 2, up to 16 MB) buys throughput: it gives the default back before the server
 * starts.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's own default for `--semi-space-growth-factor`. */
const DEFAULT_GROWTH_FACTOR = 2;

export function restoreYoungGenerationGrowth(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
