/**
 * Vitest global setup of the Node tests: the compiled programs the sandboxed agent runs
 * (build/node/relay.mjs in front of every agent program, build/node/mcp.mjs), fresh — the bridge's
 * tests start agents in their sandbox.
 */
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt } from '../../scripts/build-node.mjs';

export default async function setup() {
  await ensureBuilt('relay');
}
