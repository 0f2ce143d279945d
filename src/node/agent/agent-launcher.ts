/**
 * Every program of a workspace's agent, run as that agent (confinement.ts): its ACP process with
 * its network and its own report's MCP server, and what the runtime runs to read a session back
 * or record its definitions. The sandbox hides every other workspace's folder.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { resolve } from 'node:path';
import type { ReportGrants } from '../report-grants';
import type { Store } from '../storage/store';
import { AcpProcess } from './acp-process';
import type { WorkspaceAgent } from './agent-pool';
import { agentEgress, launch, type Launch, type LaunchOptions } from './confinement';
import { allows } from './network/egress-proxy';
import { urlTarget } from './network/egress-policy';
import { reportMcp, reportMcpFiles } from './report-mcp';
import type { Program, ReadBackContext, RecordContext, RuntimeWriteSide } from './runtime-seam';
import type { AgentSettings } from './settings';

export interface LauncherNeeds {
  settings: AgentSettings;
  runtime: RuntimeWriteSide;
  store: Store;
  grants: ReportGrants;
  /** Where this server answers, once it listens (the agents' MCP servers ask it). */
  reportOrigin: () => string | null;
  answerPermission: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  log: (line: string) => void;
}

export class AgentLauncher {
  constructor(private readonly needs: LauncherNeeds) {}

  /** Starts a workspace's agent process: its sandbox, its network, its own report's MCP server. */
  async startProcess(workspace: WorkspaceAgent): Promise<AcpProcess> {
    const { settings, runtime, grants } = this.needs;
    const program = await runtime.program(settings, this.needs.log);
    const origin = this.needs.reportOrigin();
    const how = await this.launch(workspace, program, {
      extraRead: reportMcpFiles(),
      network: {
        ...(origin ? { report: { origin, workspaceId: workspace.id } } : {}),
        onDecision: this.logEgress(workspace),
      },
    });
    const mcp = reportMcp(grants, workspace.id, how.reportOrigin);
    try {
      const started = await AcpProcess.start({
        ...how,
        onPermission: (request) => this.needs.answerPermission(request),
        onStderr: () => {},
        mcpServers: mcp.servers,
        ...(runtime.sessionMeta ? { sessionMeta: runtime.sessionMeta } : {}),
        ...(settings.startTimeoutMs ? { startTimeoutMs: settings.startTimeoutMs } : {}),
      });
      // The grant and the network live as long as the process.
      void started.exited.then(async () => {
        mcp.revoke();
        await how.network?.close();
      });
      return started;
    } catch (error) {
      mcp.revoke();
      await how.network?.close();
      throw error;
    }
  }

  /** What reading a session back may use (runtime-seam.ts). */
  readBackContext(workspace: WorkspaceAgent, sessionId: string): ReadBackContext {
    return {
      settings: this.needs.settings,
      workspace: { id: workspace.id, root: workspace.root },
      sessionId,
      launch: (program, options) => this.launch(workspace, program, options),
      log: this.needs.log,
    };
  }

  /** What recording may use (runtime-seam.ts), but `closing` and `log`: the recorder's. */
  recordContext(workspace: WorkspaceAgent): Omit<RecordContext, 'closing' | 'log'> {
    const { settings, store, grants } = this.needs;
    // A remote MCP server is asked for its tools only where the agent itself could reach it.
    let policy: ReturnType<typeof agentEgress>['policy'] | null = null;
    return {
      store,
      workspaceId: workspace.id,
      reportMcp: () => reportMcp(grants, workspace.id, this.needs.reportOrigin()),
      launch: async (program, needs) => {
        const how = await this.launch(workspace, program, {
          extraRead: reportMcpFiles(),
          ...(needs ? { network: { inbound: needs.inbound, onDecision: this.logEgress(workspace) } } : {}),
        });
        return { ...how, close: async () => how.network?.close() };
      },
      isolatedNetwork: settings.sandbox !== 'off',
      reaches: (url) => {
        if (settings.sandbox === 'off') return true;
        policy ??= agentEgress(settings, { id: workspace.id, root: workspace.root }).policy;
        const target = urlTarget(url);
        return !!target && allows(policy, target.host, target.port).allowed;
      },
    };
  }

  /**
   * How a program runs as this workspace's agent (confinement.ts): its own state, the runtime's
   * configuration, the sandbox — which must hide every other workspace's folder.
   */
  async launch(workspace: WorkspaceAgent, program: Program, options: LaunchOptions = {}): Promise<Launch> {
    const { store, settings } = this.needs;
    const others = (await store.listWorkspaces())
      .filter((w) => w.id !== workspace.id)
      .map((w) => resolve(store.resolveRoot(w.root_path)))
      .filter((root) => root !== workspace.root);
    const how = await launch(settings, { id: workspace.id, root: workspace.root, others }, program, options);
    for (const warning of how.warnings) this.needs.log(warning);
    return how;
  }

  /** Refused ways out are logged: an operator sees what an agent tried to reach. */
  private logEgress(workspace: WorkspaceAgent) {
    return (decision: { host: string; port: number; allowed: boolean; reason?: string }) => {
      if (!decision.allowed)
        this.needs.log(
          `agent of workspace ${workspace.id}: refused ${decision.host}:${decision.port} (${decision.reason})`,
        );
    };
  }
}
