/** Agent settings for tests: the production defaults (sandboxed, tightening, rejecting) unless said. */
import type { AgentSettings } from '../../src/node/agent/settings';

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
