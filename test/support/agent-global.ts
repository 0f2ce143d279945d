/**
 * Vitest global setup of the agent tests: the pinned OpenCode runtime (installed on first use
 * into .cache/opencode from the npm registry) and ripgrep, which OpenCode's skill tool needs.
 */
import { execFileSync } from 'node:child_process';
import { ensureOpencode } from '../../src/node/agent/opencode-runtime';

export default async function setup() {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error("The agent tests need ripgrep on PATH for OpenCode's skill tool: apt-get install -y ripgrep");
  }
  await ensureOpencode((line) => console.log(line));
}
