/**
 * The agent bridge: one agent process per workspace in use (agent-pool.ts: started on first use,
 * stopped when idle or to make room), one ACP session per chat session, turns streamed to the
 * chat as events (turn-events.ts), and what the agent produced persisted the way the report
 * reads it:
 *
 * - every ACP `usage_update` at once, as an `interaction_token_usage` row (source `acp`);
 * - after each turn — ended, cancelled or failed — the session's messages and parts in
 *   OpenCode's own shapes, read back from OpenCode (persist-turn.ts), never re-made from the ACP
 *   stream; when the agent never got the prompt, the user's text as a message of its own, so
 *   nothing typed is lost;
 * - then, in the background, its subagents' sessions and OpenCode's definitions (record-runtime.ts).
 *
 * Every program runs as the workspace's agent (confinement.ts): its sandbox, its own network
 * (network/), a password of its own for every server it opens. A failing agent (missing,
 * crashing, its model down, too slow) ends the turn with an error event; the server keeps running
 * and the next prompt starts the agent again.
 */
import type { ContentBlock, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { resolve } from 'node:path';
import type { AgentEvent, AgentStatus } from '../../shared/agent';
import { AGENT_IDLE_DEFAULT_MS, AGENT_MAX_RUNNING_DEFAULT } from '../env';
import { ReportGrants } from '../report-grants';
import type { NewMessage, Store } from '../storage/store';
import { acpUsageRow } from '../usage';
import { keptPrompt, newSessionId } from '../user-message';
import { AcpProcess, AgentProcessError, allowPermission, rejectPermission } from './acp-process';
import { AgentPool, AgentsBusy, type Turn, type WorkspaceAgent } from './agent-pool';
import { agentEgress, launch, SandboxError, withoutSecrets, type Launch, type LaunchOptions } from './confinement';
import { allows } from './network/egress-proxy';
import { urlTarget } from './network/egress-policy';
import { exportSession } from './opencode/export-session';
import type { SessionExport } from './opencode/session-export';
import { moveKept, persistTurn, type RunExport } from './persist-turn';
import { RuntimeRecorder } from './record-runtime';
import { reportMcp, reportMcpFiles } from './report-mcp';
import { ProgramNotFound } from './sandbox';
import { NO_AGENT_HINT, type AgentSettings } from './settings';
import { turnEvents } from './turn-events';
import { workspaceContext } from './workspace-context';

export { AgentsBusy };
export { displayTitle, toolDetails, workspacePath, STREAMED_INPUT_CHARS, STREAMED_OUTPUT_CHARS } from './turn-events';

export interface TurnRequest {
  workspaceId: string;
  root: string;
  text: string;
  /** The chat session to continue (absent: a new session). */
  sessionId?: string | undefined;
}

/** A turn whose prompt is kept and whose session is taken, not yet run. */
export interface AcceptedTurn {
  request: TurnRequest;
  kept: NewMessage;
  turn: Turn;
  turnId: string;
}

export class TurnInProgress extends Error {
  constructor(readonly sessionId: string) {
    super(`a turn is already in progress in session ${sessionId}: wait for it or stop it`);
    this.name = 'TurnInProgress';
  }
}

/** A turn ran past INVESTIBOOK_AGENT_TURN_TIMEOUT_MS (OpenCode retries an unreachable model for as long as it is let). */
export class TurnTimeout extends Error {
  readonly code = 'turn_timeout';
  constructor(ms: number) {
    super(
      `the turn took longer than ${Math.round(ms / 1000)} s and was stopped (is the agent's model reachable? INVESTIBOOK_AGENT_TURN_TIMEOUT_MS sets the limit)`,
    );
    this.name = 'TurnTimeout';
  }
}

let turnCounter = 0;

/** How long close() waits for definitions still being recorded. */
const CLOSE_GRACE_MS = 5_000;

export class AgentBridge {
  private readonly pool: AgentPool;
  private readonly recorder: RuntimeRecorder;
  /** Tokens the agents' MCP servers read their own reports with (report-mcp.ts). */
  readonly reportGrants = new ReportGrants((workspaceId) => this.workingSession(workspaceId));
  /** Where this server answers (its loopback origin), once it listens: the agents' MCP servers ask it. */
  private reportOrigin: string | null = null;
  /** Where each session's events go while its turn runs. */
  private readonly listeners = new Map<string, (event: AgentEvent) => void>();

  constructor(
    private readonly settings: AgentSettings | null,
    private readonly store: Store,
    private readonly log: (line: string) => void = () => {},
    idleMs = settings?.idleMs ?? AGENT_IDLE_DEFAULT_MS,
  ) {
    this.recorder = new RuntimeRecorder(log);
    this.pool = new AgentPool({
      idleMs,
      maxRunning: settings?.maxRunning ?? AGENT_MAX_RUNNING_DEFAULT,
      start: (agent) => this.startProcess(agent),
      log,
    });
  }

  get configured(): boolean {
    return this.settings !== null;
  }

  status(workspaceId: string): AgentStatus {
    const turns = [...(this.pool.get(workspaceId)?.turns.values() ?? [])];
    return {
      configured: this.configured,
      ...(this.configured ? {} : { hint: NO_AGENT_HINT }),
      // A stopped turn being saved is over for the user: not running.
      running: turns
        .filter((t) => !t.saving)
        .map((t) => ({ sessionId: t.sessionId, startedAt: t.startedAt.toISOString() })),
    };
  }

  /** Whether a session exists for the agent though nothing of it may be stored yet (a turn runs in it). */
  readonly isLive = (workspaceId: string, sessionId: string): boolean =>
    this.pool.get(workspaceId)?.turns.has(sessionId) ?? false;

  /** Refuses a second turn in the same session before anything is streamed. */
  checkFree(workspaceId: string, sessionId: string | undefined): void {
    if (sessionId && this.pool.get(workspaceId)?.turns.has(sessionId)) throw new TurnInProgress(sessionId);
  }

  /**
   * Where this server listens: agent processes started from now on get the `investibook` MCP
   * server (their own context report), which asks this origin.
   */
  serveReportsAt(origin: string): void {
    this.reportOrigin = origin;
  }

  /** The one session a workspace's agent has a turn running in, if one (its report grant's default). */
  private workingSession(workspaceId: string): string | undefined {
    const running = new Set(
      [...(this.pool.get(workspaceId)?.turns.values() ?? [])]
        .map((turn) => turn.sessionId)
        .filter((id) => !id.startsWith('turn_')),
    );
    return running.size === 1 ? [...running][0] : undefined;
  }

  /** Stops the turn in progress in a session; false when there is none. */
  async cancel(workspaceId: string, sessionId: string): Promise<boolean> {
    const turn = this.pool.get(workspaceId)?.turns.get(sessionId);
    if (!turn) return false;
    await turn.cancel();
    return true;
  }

  /**
   * Runs one turn, calling `emit` with its events (a closed stream must not stop the turn: emit
   * never throws into here). Resolves when the turn is over and persisted.
   */
  async runTurn(request: TurnRequest, emit: (event: AgentEvent) => void): Promise<void> {
    await this.run(await this.keepPrompt(request), emit);
  }

  /**
   * Takes the session for a new turn and persists its prompt before anything else happens, so
   * that nothing typed is lost whatever follows (the agent failing, the server killed): under the
   * asked session, or a provisional one until the agent names its own. The agent's own copy
   * replaces it when the turn is saved. Throws when the session is busy, every agent this server
   * may run has a turn (AgentsBusy), or the prompt cannot be stored (the route answers before
   * streaming, and the chat keeps the text).
   */
  async keepPrompt(request: TurnRequest): Promise<AcceptedTurn> {
    if (!this.settings) throw new Error('no agent configured');
    // A stopped turn of this session ended for the user before it was saved: the next prompt waits for the save.
    const saving = request.sessionId
      ? this.pool.get(request.workspaceId)?.turns.get(request.sessionId)?.saving
      : undefined;
    if (saving) await saving;
    const workspace = this.pool.workspace(request.workspaceId, request.root);
    this.checkFree(request.workspaceId, request.sessionId);
    this.pool.admit(workspace);
    const turnId = `turn_${Date.now().toString(36)}_${++turnCounter}`;
    // Held under the asked session until the real one is known, so a second prompt waits.
    const turn: Turn = {
      sessionId: request.sessionId ?? turnId,
      startedAt: new Date(),
      stopped: false,
      cancel: async () => {
        turn.stopped = true;
      },
    };
    workspace.turns.set(turn.sessionId, turn);
    try {
      const kept = keptPrompt(request.workspaceId, request.sessionId ?? newSessionId(), request.text);
      await this.store.insertMessage(kept);
      return { request, kept, turn, turnId };
    } catch (error) {
      if (workspace.turns.get(turn.sessionId) === turn) workspace.turns.delete(turn.sessionId);
      throw error;
    }
  }

  /** Runs an accepted turn (its prompt kept): see runTurn. */
  async run(accepted: AcceptedTurn, emit: (event: AgentEvent) => void): Promise<void> {
    const settings = this.settings;
    if (!settings) throw new Error('no agent configured');
    const { request, turn, turnId } = accepted;
    let { kept } = accepted;
    const send = (event: AgentEvent) => {
      try {
        emit(event);
      } catch {
        // the browser went away; the turn goes on
      }
    };
    const workspace = this.pool.workspace(request.workspaceId, request.root);
    const placeholder = turn.sessionId;
    let agent: AcpProcess | null = null;
    let sessionId: string | null = null;
    turn.cancel = async () => {
      turn.stopped = true;
      if (agent && sessionId) await agent.cancel(sessionId).catch(() => {});
    };
    let promptReached = false;
    let turnSent = false;
    let saved = () => {};
    /** The turn's end: the agent's record of it saved (the kept prompt stays when there is none), then its last event, if not sent yet. */
    const finish = async (last: AgentEvent | null) => {
      try {
        if (promptReached && sessionId) await this.save(settings, workspace, sessionId, kept, send);
        else send({ type: 'saved', messages: 1 });
        if (last) send(last);
      } catch (error) {
        // Saving failed (the database is busy or gone): the chat is told; the turn still ends.
        this.log(`agent turn in workspace ${request.workspaceId} not saved: ${describe(error).message}`);
        send({ type: 'error', code: 'not_saved', message: `the turn could not be saved: ${describe(error).message}` });
      }
    };
    try {
      agent = await this.pool.process(workspace);
      const opened = await this.openSession(agent, workspace, request.sessionId);
      sessionId = opened.sessionId;
      if (sessionId !== kept.sessionId) kept = await moveKept(this.store, kept, sessionId);
      if (sessionId !== placeholder) {
        if (workspace.turns.get(placeholder) === turn) workspace.turns.delete(placeholder);
        turn.sessionId = sessionId;
        workspace.turns.set(sessionId, turn);
      }
      send({
        type: 'turn',
        turnId,
        sessionId,
        newSession: opened.isNew,
        ...(opened.note ? { note: opened.note } : {}),
      });
      turnSent = true;
      if (turn.stopped) {
        // Stopped before the agent got the prompt: the text is kept all the same.
        await finish({ type: 'done', stopReason: 'cancelled' });
        return;
      }
      const blocks: ContentBlock[] = [{ type: 'text', text: request.text }];
      const context = opened.isNew ? workspaceContext(workspace.root) : null;
      // For the model only: OpenCode keeps it as a synthetic part, the chat never shows it.
      if (context) blocks.push({ type: 'text', text: context, annotations: { audience: ['assistant'] } });
      promptReached = true;
      this.listeners.set(sessionId, send);
      const toEvent = turnEvents(workspace.root, (usage) => this.keepUsage(workspace.id, sessionId!, usage));
      let result: { stopReason: string };
      try {
        result = await this.withTimeout(
          agent.prompt(sessionId, blocks, (update) => {
            const event = toEvent(update);
            if (event) send(event);
          }),
          settings.turnTimeoutMs,
          () => void turn.cancel(),
        );
      } catch (error) {
        const problem = describe(error);
        this.log(`agent turn failed in workspace ${request.workspaceId}: ${problem.message}`);
        await finish({ type: 'error', ...problem });
        return;
      }
      if (turn.stopped) {
        // Stop: OpenCode has answered the cancel, so the turn ends for the user now; saving what
        // it did (`opencode export`, its subagents: seconds) follows, and `saved` after `done`
        // says when it is in the history. The session's next prompt waits for that save.
        turn.saving = new Promise((resolve) => (saved = resolve));
        send({ type: 'done', stopReason: result.stopReason });
        await finish(null);
        return;
      }
      await finish({ type: 'done', stopReason: result.stopReason });
    } catch (error) {
      // The agent could not be started, or the session not opened: the prompt never reached it.
      const problem = describe(error);
      this.log(`agent turn failed in workspace ${request.workspaceId}: ${problem.message}`);
      sessionId ??= kept.sessionId;
      // The chat learns which session its message is kept in, even when the agent never opened one.
      if (!turnSent) send({ type: 'turn', turnId, sessionId, newSession: !request.sessionId });
      await finish({ type: 'error', ...problem });
    } finally {
      if (sessionId && this.listeners.get(sessionId) === send) this.listeners.delete(sessionId);
      // Only this turn's own entries: the placeholder may already name another turn's session.
      for (const key of [turn.sessionId, placeholder]) {
        if (workspace.turns.get(key) === turn) workspace.turns.delete(key);
      }
      this.pool.turnEnded(workspace);
      saved();
    }
  }

  private keepUsage(workspaceId: string, sessionId: string, usage: Parameters<typeof acpUsageRow>[2]): void {
    void this.store
      .insertUsage(acpUsageRow(workspaceId, sessionId, usage, Date.now()))
      .catch((error: unknown) => this.log(`usage row not stored: ${describe(error).message}`));
  }

  /** The turn's messages saved, then its subagents and definitions recorded in the background. */
  private async save(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    sessionId: string,
    kept: NewMessage,
    send: (e: AgentEvent) => void,
  ): Promise<void> {
    const runExport = settings.exporter ? this.exporter(settings, workspace) : null;
    const { saved, exported } = await persistTurn(
      this.store,
      { workspaceId: workspace.id, sessionId, kept },
      runExport,
      this.log,
    );
    send({ type: 'saved', messages: saved });
    if (exported && runExport) await this.keepRuntime(settings, workspace, exported, runExport);
  }

  private async keepRuntime(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    exported: SessionExport,
    runExport: RunExport,
  ): Promise<void> {
    const server = settings.runtimeServer ?? null;
    // The agent's own MCP server reaches OpenCode through ACP, not its configuration: it is
    // listed as the agent process has it (a grant of its own, dropped once recorded).
    const acpMcp = server ? reportMcp(this.reportGrants, workspace.id, this.reportOrigin) : null;
    // A remote MCP server is asked for its tools only where the agent itself could reach it.
    const policy = server ? agentEgress(settings, { id: workspace.id, root: workspace.root }).policy : null;
    await this.recorder.keep({
      store: this.store,
      workspaceId: workspace.id,
      exported,
      runExport,
      acpMcp,
      definitions: server
        ? {
            launch: async (program, needs) =>
              closable(
                await this.launch(settings, workspace, program, {
                  extraRead: reportMcpFiles(),
                  ...(needs ? { network: { inbound: needs.inbound, onDecision: this.logEgress(workspace) } } : {}),
                }),
              ),
            isolatedNetwork: settings.sandbox !== 'off',
            serve: server,
            reaches: (url) => {
              const target = urlTarget(url);
              return (
                settings.sandbox === 'off' || (!!target && !!policy && allows(policy, target.host, target.port).allowed)
              );
            },
          }
        : null,
    });
  }

  /** Reads a session back from the agent, run as it is. */
  private exporter(settings: AgentSettings, workspace: WorkspaceAgent): RunExport {
    const exporter = settings.exporter!;
    return async (sessionId) =>
      exportSession(
        await this.launch(settings, workspace, {
          command: exporter.command,
          args: exporter.args.map((arg) => arg.replaceAll('{session}', sessionId)),
        }),
      );
  }

  /** Starts a workspace's agent process: its sandbox, its network, its own report's MCP server. */
  private async startProcess(workspace: WorkspaceAgent): Promise<AcpProcess> {
    const settings = this.settings!;
    const how = await this.launch(
      settings,
      workspace,
      { command: settings.command, args: settings.args },
      {
        extraRead: reportMcpFiles(),
        network: {
          ...(this.reportOrigin ? { report: { origin: this.reportOrigin, workspaceId: workspace.id } } : {}),
          onDecision: this.logEgress(workspace),
        },
      },
    );
    const mcp = reportMcp(this.reportGrants, workspace.id, how.reportOrigin);
    try {
      const started = await AcpProcess.start({
        ...how,
        onPermission: (request) => this.answerPermission(settings, request),
        onStderr: () => {},
        mcpServers: mcp.servers,
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

  /** Refused ways out are logged: an operator sees what an agent tried to reach. */
  private logEgress(workspace: WorkspaceAgent) {
    return (decision: { host: string; port: number; allowed: boolean; reason?: string }) => {
      if (!decision.allowed)
        this.log(`agent of workspace ${workspace.id}: refused ${decision.host}:${decision.port} (${decision.reason})`);
    };
  }

  /** The workspace's agent process, if one runs (operators and tests: its pid). */
  processId(workspaceId: string): number | undefined {
    const process = this.pool.get(workspaceId)?.process;
    return process?.running ? process.pid : undefined;
  }

  /**
   * Stops every agent (their turns end, saved), then gives definitions still being recorded a
   * few seconds: one cut short is recorded after the session's next turn, and its processes,
   * sandboxed with --die-with-parent, end with the server. Nothing new is recorded meanwhile.
   */
  async close(): Promise<void> {
    this.recorder.closing = true;
    await this.pool.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.recorder.settled(),
      new Promise<void>((done) => {
        timer = setTimeout(done, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Resolves once every turn's definitions are recorded (tests; close). */
  settled(): Promise<void> {
    return this.recorder.settled();
  }

  /**
   * How a program runs as this workspace's agent (confinement.ts): its own state, the server's
   * permission defaults, the sandbox — which must hide every other workspace's folder.
   */
  private async launch(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    program: { command: string; args: readonly string[] },
    options: LaunchOptions = {},
  ): Promise<Launch> {
    const others = (await this.store.listWorkspaces())
      .filter((w) => w.id !== workspace.id)
      .map((w) => resolve(this.store.resolveRoot(w.root_path)))
      .filter((root) => root !== workspace.root);
    const how = await launch(settings, { id: workspace.id, root: workspace.root, others }, program, options);
    for (const warning of how.warnings) this.log(warning);
    return how;
  }

  /** Continues the asked session when the agent has it (loading it after a restart), else a new one. */
  private async openSession(
    agent: AcpProcess,
    workspace: WorkspaceAgent,
    asked: string | undefined,
  ): Promise<{ sessionId: string; isNew: boolean; note?: string }> {
    if (asked && workspace.sessions.has(asked)) return { sessionId: asked, isNew: false };
    let note: string | undefined;
    if (asked) {
      try {
        await agent.loadSession(asked, workspace.root);
        workspace.sessions.add(asked);
        return { sessionId: asked, isNew: false };
      } catch {
        note = `The agent does not have this conversation (it was recorded elsewhere, or the agent's storage was reset): this turn starts a new one.`;
      }
    }
    const sessionId = await agent.newSession(workspace.root);
    workspace.sessions.add(sessionId);
    return { sessionId, isNew: true, ...(note ? { note } : {}) };
  }

  /** The server's policy answers; the chat of the session is told what was asked and what was answered. */
  private async answerPermission(settings: AgentSettings, request: RequestPermissionRequest) {
    const allowed = settings.permissions === 'allow';
    this.listeners.get(request.sessionId)?.({
      type: 'permission',
      title: request.toolCall.title ?? 'a tool call',
      allowed,
    });
    return allowed ? allowPermission(request) : rejectPermission(request);
  }

  private async withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            onTimeout();
            reject(new TurnTimeout(ms));
          }, ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A launch as the definitions recorder takes it: what it opened is closed with the program. */
function closable(how: Launch) {
  return { ...how, close: async () => how.network?.close() };
}

/** The server's environment for the agent, without investibook's own secrets. */
export const agentEnv = withoutSecrets;

/** An error as the chat shows it: a code and one sentence. */
function describe(error: unknown): { code: string; message: string } {
  if (error instanceof TurnTimeout) return { code: error.code, message: error.message };
  if (error instanceof ProgramNotFound)
    return { code: 'agent_not_found', message: `${error.message} — check INVESTIBOOK_AGENT_COMMAND` };
  if (error instanceof SandboxError && error.reason === 'folder')
    return {
      code: error.code,
      message: `${error.message}. A workspace's folder must be a project's own folder.`,
    };
  if (error instanceof SandboxError)
    return {
      code: error.code,
      message: `${error.message}. The agent runs only in a sandbox; an operator who accepts the risk can set INVESTIBOOK_AGENT_SANDBOX=off.`,
    };
  if (error instanceof AgentProcessError) {
    const hint = error.code === 'agent_not_found' ? ' — check INVESTIBOOK_AGENT_COMMAND' : '';
    return { code: error.code, message: `${error.message}${hint}` };
  }
  const rpc = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof rpc?.code === 'number' && typeof rpc.message === 'string') {
    const detail = typeof rpc.data === 'string' ? rpc.data : JSON.stringify(rpc.data ?? '');
    return {
      code: 'agent_error',
      message: `the agent answered with an error: ${rpc.message}${detail && detail !== '""' ? ` (${detail.slice(0, 300)})` : ''}`,
    };
  }
  return { code: 'agent_error', message: error instanceof Error ? error.message : String(error) };
}
