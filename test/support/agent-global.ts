/**
 * Vitest global setup of the agent tests: the pinned OpenCode runtime (installed on first use
 * into .cache/opencode from the npm registry), ripgrep, which OpenCode's skill tool needs, and
 * the compiled MCP server and network relay the agent runs in its sandbox (build/node/{mcp,relay}.mjs, fresh).
 */
import { execFileSync } from 'node:child_process';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt } from '../../scripts/build-node.mjs';
import { ensureOpencode } from '../../src/node/agent/opencode/install';

export default async function setup() {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error("The agent tests need ripgrep on PATH for OpenCode's skill tool: apt-get install -y ripgrep");
  }
  await ensureOpencode((line) => console.log(line));
  await ensureBuilt('mcp');
  await ensureBuilt('relay');
}
