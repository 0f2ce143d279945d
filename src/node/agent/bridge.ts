/**
 * The agent bridge, the live agent's facade: one agent process per workspace in use
 * (agent-pool.ts: started on first use, stopped when idle or to make room), one ACP session per
 * chat session, a turn from kept prompt to saved (turn-run.ts), and what the agent produced
 * persisted the way the report reads it:
 *
 * - every ACP `usage_update` at once, as an `interaction_token_usage` row (source `acp`);
 * - after each turn — ended, cancelled or failed — the session's messages in its runtime's own
 *   shapes, read back from the runtime's own store (runtime-seam.ts `readBack`; persist-turn.ts),
 *   never re-made from the ACP stream; when the agent never got the prompt, the user's text as a
 *   message of its own, so nothing typed is lost;
 * - then, in the background, what the runtime records beside them (record-runtime.ts).
 *
 * The runtime is the one INVESTIBOOK_AGENT_RUNTIME names (runtime-registry.ts). Every program
 * runs as the workspace's agent (agent-launcher.ts, confinement.ts): its sandbox, its own network
 * (network/), a password of its own for every server it opens. A failing agent (missing,
 * crashing, its model down, too slow) ends the turn with an error event (turn-errors.ts); the
 * server keeps running and the next prompt starts the agent again.
 */
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { AgentEvent, AgentStatus } from '../../shared/agent';
import { AGENT_IDLE_DEFAULT_MS, AGENT_MAX_RUNNING_DEFAULT } from '../env';
import { ReportGrants } from '../report-grants';
import type { Store } from '../storage/store';
import { keptPrompt, newSessionId } from '../user-message';
import { allowPermission, rejectPermission } from './acp-process';
import { AgentLauncher } from './agent-launcher';
import { AgentPool, AgentsBusy, type Turn } from './agent-pool';
import { withoutSecrets } from './confinement';
import { RuntimeRecorder } from './record-runtime';
import { OWN_MESSAGES, writeSideOf } from './runtime-registry';
import { NO_AGENT_HINT, type AgentSettings } from './settings';
import { TurnInProgress, TurnTimeout } from './turn-errors';
import { TurnRun, type AcceptedTurn, type TurnRequest } from './turn-run';

export { AgentsBusy, TurnInProgress, TurnTimeout };
export type { AcceptedTurn, TurnRequest };
export { displayTitle, toolDetails, workspacePath, STREAMED_INPUT_CHARS, STREAMED_OUTPUT_CHARS } from './turn-events';

let turnCounter = 0;

/** How long close() waits for definitions still being recorded. */
const CLOSE_GRACE_MS = 5_000;

export class AgentBridge {
  private readonly pool: AgentPool;
  private readonly recorder: RuntimeRecorder;
  private readonly launcher: AgentLauncher | null;
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
    this.launcher = settings
      ? new AgentLauncher({
          settings,
          runtime: writeSideOf(settings.runtime),
          store,
          grants: this.reportGrants,
          reportOrigin: () => this.reportOrigin,
          answerPermission: (request) => this.answerPermission(request),
          log,
        })
      : null;
    this.pool = new AgentPool({
      idleMs,
      maxRunning: settings?.maxRunning ?? AGENT_MAX_RUNNING_DEFAULT,
      start: (agent) => this.launcher!.startProcess(agent),
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
      const kept = keptPrompt(OWN_MESSAGES, request.workspaceId, request.sessionId ?? newSessionId(), request.text);
      if (!request.command) await this.store.insertMessage(kept);
      return { request, kept, turn, turnId };
    } catch (error) {
      if (workspace.turns.get(turn.sessionId) === turn) workspace.turns.delete(turn.sessionId);
      throw error;
    }
  }

  /** Runs an accepted turn (its prompt kept): see runTurn (turn-run.ts). */
  async run(accepted: AcceptedTurn, emit: (event: AgentEvent) => void): Promise<void> {
    const { settings, launcher } = this;
    if (!settings || !launcher) throw new Error('no agent configured');
    const needs = {
      settings,
      runtime: writeSideOf(settings.runtime),
      store: this.store,
      pool: this.pool,
      launcher,
      recorder: this.recorder,
      listeners: this.listeners,
      log: this.log,
    };
    await new TurnRun(needs, accepted, emit).run();
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

  /** The server's policy answers; the chat of the session is told what was asked and what was answered. */
  private async answerPermission(request: RequestPermissionRequest) {
    const allowed = this.settings!.permissions === 'allow';
    this.listeners.get(request.sessionId)?.({
      type: 'permission',
      title: request.toolCall.title ?? 'a tool call',
      allowed,
    });
    return allowed ? allowPermission(request) : rejectPermission(request);
  }
}

/** The server's environment for the agent, without investibook's own secrets. */
export const agentEnv = withoutSecrets;
