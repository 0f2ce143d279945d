/**
 * bin/investibook.js keeps V8's young generation at its initial 1 MB semi-space for the CLI's
 * one-shot commands (`--semi-space-growth-factor=1`, set before anything loads: why there).
 * `investibook serve` runs for hours and makes report after report, where V8's default growth
 * (a factor of 2, up to 16 MB) buys throughput: it gives the default back before the server
 * starts, and V8's default interrupt budget (the launcher raises it so that a short command
 * optimizes little: a server's work is long and repeated).
 */
import { setFlagsFromString } from 'node:v8';

/** V8's own default for `--semi-space-growth-factor`. */
const DEFAULT_GROWTH_FACTOR = 2;
/** V8's own default for `--interrupt-budget` (Node 20's V8 11.3), which the launcher raises for one-shot commands. */
const DEFAULT_INTERRUPT_BUDGET = 67584;

export function restoreYoungGenerationGrowth(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  setFlagsFromString(`--interrupt-budget=${DEFAULT_INTERRUPT_BUDGET}`);
}
