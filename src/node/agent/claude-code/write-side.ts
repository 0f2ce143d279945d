/**
 * Claude Code's write side: not the live agent yet. Its read side (core/claude-code) reports an
 * imported transcript; running it as the workspace's agent is refused in one sentence at start,
 * so INVESTIBOOK_AGENT_RUNTIME=claude-code never runs a Claude Code process unconfined or
 * half-configured. (Issue 40: the live side replaces this file.)
 */
import { RUNTIME_TITLES } from '../../../shared/runtimes';
import { AgentProcessError } from '../acp-process';
import { egressPolicy } from '../network/egress-policy';
import type { RuntimeWriteSide } from '../runtime-seam';

export const claudeCodeWriteSide: RuntimeWriteSide = {
  name: 'claude-code',
  title: RUNTIME_TITLES['claude-code'],
  async program() {
    throw new AgentProcessError(
      'Claude Code is not yet supported as the live agent (its sessions can be imported: investibook import --from-claude-code); set INVESTIBOOK_AGENT_RUNTIME=opencode',
      'agent_unsupported',
    );
  },
  prepare: () => ({ env: {}, readOnly: [], warnings: [] }),
  // No way out until the live side says which: its model's host only.
  egress: (settings) =>
    egressPolicy({
      operatorFiles: [],
      workspaceFiles: [],
      workspaceWidens: false,
      env: {},
      authFile: null,
      extra: settings.egressHosts ?? [],
    }),
  readBack: async () => null,
};
