/** Agent settings for tests: the production defaults (sandboxed, tightening, rejecting) unless said. */
import { dirname, join } from 'node:path';
import type { AgentSettings } from '../../src/node/agent/settings';
import { PROJECT_ROOT } from '../../src/node/project';

export function agentSettings(
  settings: Pick<AgentSettings, 'command' | 'args' | 'env' | 'exporter' | 'stateDir'> & Partial<AgentSettings>,
): AgentSettings {
  return {
    permissions: 'reject',
    workspacePermissions: 'tighten',
    sandbox: 'bwrap',
    bwrap: 'bwrap',
    sandboxRead: [],
    hidden: [],
    turnTimeoutMs: 90_000,
    ...settings,
  };
}

/** The fake ACP agent of these tests (test/support/fake-acp-agent.mjs): a script of this project. */
export const FAKE_AGENT = join(import.meta.dirname, 'fake-acp-agent.mjs');

/**
 * Settings that run the fake agent sandboxed: the agent and its export are the script, its state
 * under `stateDir`, the database (`hidden`) out of its sight, and the script's folder and the SDK it
 * imports readable.
 */
export function fakeAgentSettings(
  where: { stateDir: string; database: string; env?: NodeJS.ProcessEnv },
  extra: Partial<AgentSettings> = {},
): AgentSettings {
  return agentSettings({
    command: process.execPath,
    args: [FAKE_AGENT],
    env: where.env ?? { ...process.env },
    exporter: { command: process.execPath, args: [FAKE_AGENT, 'export', '{session}'] },
    stateDir: where.stateDir,
    sandboxRead: [dirname(FAKE_AGENT), join(PROJECT_ROOT, 'node_modules')],
    hidden: [where.database],
    ...extra,
  });
}
