/**
 * The agent bridge: one agent process per workspace (started on first use, in the workspace
 * folder), one ACP session per chat session, turns streamed to the chat as events, and what the
 * agent produced persisted the way the report reads it:
 *
 * - every ACP `usage_update` at once, as an `interaction_token_usage` row (source `acp`);
 * - after each turn — ended, cancelled or failed — the session's messages and parts in
 *   OpenCode's own shapes, read back from OpenCode (`opencode export`), never re-made from the
 *   ACP stream; when the agent never got the prompt, the user's text as a message of its own, so
 *   nothing typed is lost.
 *
 * A failing agent (missing, crashing, its model down, too slow) ends the turn with an error
 * event; the server keeps running and the next prompt starts the agent again.
 */
import type { ContentBlock, RequestPermissionRequest, SessionUpdate } from '@agentclientprotocol/sdk';
import { relative, resolve, sep } from 'node:path';
import type { AgentEvent, AgentStatus } from '../../shared/agent';
import { ReportGrants } from '../report-grants';
import type { NewMessage, Store } from '../storage/store';
import { acpUsageRow } from '../usage';
import { isKeptPrompt, keptPrompt, newSessionId, promptText } from '../user-message';
import { AcpProcess, AgentProcessError, allowPermission, rejectPermission } from './acp-process';
import { launch, SandboxError, withoutSecrets } from './confinement';
import { ProgramNotFound } from './sandbox';
import { exportSession } from './export-session';
import { messageRows, type SessionExport } from './opencode-export';
import { keepChildren, keepDefinitions } from './session-runtime';
import { NO_AGENT_HINT, type AgentSettings } from './settings';
import { reportMcp } from './report-mcp';
import { workspaceContext } from './workspace-context';

export interface TurnRequest {
  workspaceId: string;
  root: string;
  text: string;
  /** The chat session to continue (absent: a new session). */
  sessionId?: string | undefined;
}

interface Turn {
  sessionId: string;
  startedAt: Date;
  /** Stop was asked for (possibly before the agent had the prompt). */
  stopped: boolean;
  cancel: () => Promise<void>;
}

/** A turn whose prompt is kept and whose session is taken, not yet run. */
export interface AcceptedTurn {
  request: TurnRequest;
  kept: NewMessage;
  turn: Turn;
  turnId: string;
}

interface WorkspaceAgent {
  id: string;
  root: string;
  process: AcpProcess | null;
  starting: Promise<AcpProcess> | null;
  /** Sessions the running process has created or loaded. */
  sessions: Set<string>;
  /** Turns in progress, by session. */
  turns: Map<string, Turn>;
  /** Closes an idle agent process (AGENT_IDLE_MS after its last turn). */
  idle: NodeJS.Timeout | null;
}

/** An agent process with no turn for this long is stopped; the next prompt starts it again. */
export const AGENT_IDLE_MS = 15 * 60_000;

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
  private readonly workspaces = new Map<string, WorkspaceAgent>();
  /** Tokens the agents' MCP servers read their own reports with (report-mcp.ts). */
  readonly reportGrants = new ReportGrants((workspaceId) => this.workingSession(workspaceId));
  /** Where this server answers (its loopback origin), once it listens: the agents' MCP servers ask it. */
  private reportOrigin: string | null = null;

  constructor(
    private readonly settings: AgentSettings | null,
    private readonly store: Store,
    private readonly log: (line: string) => void = () => {},
    private readonly idleMs = AGENT_IDLE_MS,
  ) {}

  get configured(): boolean {
    return this.settings !== null;
  }

  status(workspaceId: string): AgentStatus {
    const turns = [...(this.workspaces.get(workspaceId)?.turns.values() ?? [])];
    return {
      configured: this.configured,
      ...(this.configured ? {} : { hint: NO_AGENT_HINT }),
      running: turns.map((t) => ({ sessionId: t.sessionId, startedAt: t.startedAt.toISOString() })),
    };
  }

  /** Whether a session exists for the agent though nothing of it may be stored yet (a turn runs in it). */
  readonly isLive = (workspaceId: string, sessionId: string): boolean =>
    this.workspaces.get(workspaceId)?.turns.has(sessionId) ?? false;

  /** Refuses a second turn in the same session before anything is streamed. */
  checkFree(workspaceId: string, sessionId: string | undefined): void {
    if (sessionId && this.workspaces.get(workspaceId)?.turns.has(sessionId)) throw new TurnInProgress(sessionId);
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
      [...(this.workspaces.get(workspaceId)?.turns.values() ?? [])]
        .map((turn) => turn.sessionId)
        .filter((id) => !id.startsWith('turn_')),
    );
    return running.size === 1 ? [...running][0] : undefined;
  }

  /** Stops the turn in progress in a session; false when there is none. */
  async cancel(workspaceId: string, sessionId: string): Promise<boolean> {
    const turn = this.workspaces.get(workspaceId)?.turns.get(sessionId);
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
   * replaces it when the turn is saved. Throws when the session is busy or the prompt cannot be
   * stored (the route answers before streaming).
   */
  async keepPrompt(request: TurnRequest): Promise<AcceptedTurn> {
    if (!this.settings) throw new Error('no agent configured');
    const workspace = this.workspace(request.workspaceId, request.root);
    this.checkFree(request.workspaceId, request.sessionId);
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
    const workspace = this.workspace(request.workspaceId, request.root);
    const placeholder = turn.sessionId;
    let agent: AcpProcess | null = null;
    let sessionId: string | null = null;
    turn.cancel = async () => {
      turn.stopped = true;
      if (agent && sessionId) await agent.cancel(sessionId).catch(() => {});
    };
    if (workspace.idle) clearTimeout(workspace.idle);
    let promptReached = false;
    let turnSent = false;
    /** The turn's end: the agent's record of it saved (the kept prompt stays when there is none), then one last event. */
    const finish = async (last: AgentEvent) => {
      try {
        if (promptReached && sessionId) await this.persist(settings, workspace, request, sessionId, kept, send);
        else send({ type: 'saved', messages: 1 });
        send(last);
      } catch (error) {
        // Saving failed (the database is busy or gone): the chat is told; the turn still ends.
        this.log(`agent turn in workspace ${request.workspaceId} not saved: ${describe(error).message}`);
        send({ type: 'error', code: 'not_saved', message: `the turn could not be saved: ${describe(error).message}` });
      }
    };
    try {
      agent = await this.process(workspace, settings);
      const opened = await this.openSession(agent, workspace, request.sessionId);
      sessionId = opened.sessionId;
      if (sessionId !== kept.sessionId) kept = await this.moveKept(kept, sessionId);
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
      const where = { id: request.workspaceId, root: workspace.root };
      let result: { stopReason: string };
      try {
        result = await this.withTimeout(
          agent.prompt(sessionId, blocks, (update) => this.onUpdate(where, sessionId!, update, send)),
          settings.turnTimeoutMs,
          () => void turn.cancel(),
        );
      } catch (error) {
        const problem = describe(error);
        this.log(`agent turn failed in workspace ${request.workspaceId}: ${problem.message}`);
        await finish({ type: 'error', ...problem });
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
      if (sessionId && this.listeners.get(sessionId) === send) {
        this.listeners.delete(sessionId);
        this.toolNames.delete(sessionId);
      }
      // Only this turn's own entries: the placeholder may already name another turn's session.
      for (const key of [turn.sessionId, placeholder]) {
        if (workspace.turns.get(key) === turn) workspace.turns.delete(key);
      }
      this.closeWhenIdle(workspace);
    }
  }

  /** The kept prompt, moved from its provisional session to the one the agent opened. */
  private async moveKept(kept: NewMessage, sessionId: string): Promise<NewMessage> {
    const moved = { ...kept, sessionId };
    await this.store.transaction(async (tx) => {
      await tx.deleteMessage(kept.workspaceId, kept.sessionId, kept.id);
      await tx.insertMessage(moved);
    });
    return moved;
  }

  /** One agent process per workspace in use, not per workspace ever used: idle ones are stopped. */
  private closeWhenIdle(workspace: WorkspaceAgent): void {
    if (workspace.idle) clearTimeout(workspace.idle);
    workspace.idle = setTimeout(() => {
      workspace.idle = null;
      if (workspace.turns.size > 0 || !workspace.process) return;
      const idle = workspace.process;
      workspace.process = null;
      workspace.sessions.clear();
      void idle.close();
    }, this.idleMs);
    workspace.idle.unref();
  }

  /** The agent process of a workspace, if one runs (operators and tests: its pid). */
  processId(workspaceId: string): number | undefined {
    const process = this.workspaces.get(workspaceId)?.process;
    return process?.running ? process.pid : undefined;
  }

  /**
   * Stops every agent (their turns end, saved), then gives definitions still being recorded a
   * few seconds: one cut short is recorded after the session's next turn, and its processes,
   * sandboxed with --die-with-parent, end with the server. Nothing new is recorded meanwhile.
   */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.workspaces.values()].map(async (w) => {
        if (w.idle) clearTimeout(w.idle);
        const agent = w.process ?? (await w.starting?.catch(() => null));
        await agent?.close();
      }),
    );
    this.workspaces.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.settled(),
      new Promise<void>((done) => {
        timer = setTimeout(done, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  private closing = false;

  private workspace(workspaceId: string, root: string): WorkspaceAgent {
    let found = this.workspaces.get(workspaceId);
    if (!found || found.root !== root) {
      // The workspace moved: its agent must run in the new folder.
      void found?.process?.close();
      found = {
        id: workspaceId,
        root,
        process: null,
        starting: null,
        sessions: new Set(),
        turns: found?.turns ?? new Map(),
        idle: null,
      };
      this.workspaces.set(workspaceId, found);
    }
    return found;
  }

  /** The workspace's agent process, started (again) when there is none or it died. */
  private async process(workspace: WorkspaceAgent, settings: AgentSettings): Promise<AcpProcess> {
    if (workspace.process?.running) return workspace.process;
    if (!workspace.starting) {
      workspace.process = null;
      workspace.sessions.clear();
      const mcp = reportMcp(this.reportGrants, workspace.id, this.reportOrigin);
      workspace.starting = this.launch(settings, workspace, { command: settings.command, args: settings.args }, mcp)
        .then((how) =>
          AcpProcess.start({
            ...how,
            onPermission: (request) => this.answerPermission(settings, request),
            onStderr: () => {},
            mcpServers: mcp.servers,
            ...(settings.startTimeoutMs ? { startTimeoutMs: settings.startTimeoutMs } : {}),
          }),
        )
        .then((started) => {
          workspace.process = started;
          // The grant lives as long as the process.
          void started.exited.then(mcp.revoke);
          return started;
        })
        .catch((error: unknown) => {
          mcp.revoke();
          throw error;
        })
        .finally(() => {
          workspace.starting = null;
        });
    }
    return workspace.starting;
  }

  /**
   * How a program runs as this workspace's agent (confinement.ts): its own state, the server's
   * permission defaults, the sandbox — which must hide every other workspace's folder.
   */
  private async launch(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    program: { command: string; args: readonly string[] },
    mcp: { readOnly: readonly string[] } = { readOnly: [] },
  ) {
    const others = (await this.store.listWorkspaces())
      .filter((w) => w.id !== workspace.id)
      .map((w) => resolve(this.store.resolveRoot(w.root_path)))
      .filter((root) => root !== workspace.root);
    const how = launch(settings, { id: workspace.id, root: workspace.root, others }, program, mcp.readOnly);
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

  /** Where each session's events go while its turn runs. */
  private readonly listeners = new Map<string, (event: AgentEvent) => void>();
  /** OpenCode's tool name of each call of a session's running turn. */
  private readonly toolNames = new Map<string, Map<string, string>>();

  private onUpdate(
    workspace: { id: string; root: string },
    sessionId: string,
    update: SessionUpdate,
    send: (e: AgentEvent) => void,
  ) {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        if (update.content.type === 'text') send({ type: 'text', text: update.content.text });
        break;
      case 'agent_thought_chunk':
        if (update.content.type === 'text') send({ type: 'reasoning', text: update.content.text });
        break;
      case 'tool_call':
      case 'tool_call_update': {
        const status = update.status ?? 'pending';
        const paths = (update.locations ?? []).flatMap((l) => (l.path ? [workspacePath(workspace.root, l.path)] : []));
        // OpenCode announces a call titled with its tool's name, then retitles it as it runs.
        const names = this.toolNames.get(sessionId) ?? new Map<string, string>();
        this.toolNames.set(sessionId, names);
        if (update.sessionUpdate === 'tool_call' && update.title && /^[\w-]+$/.test(update.title))
          names.set(update.toolCallId, update.title);
        const tool = names.get(update.toolCallId);
        const details = toolDetails(update.rawInput, update.rawOutput, status === 'failed');
        send({
          type: 'tool',
          toolCallId: update.toolCallId,
          title: displayTitle(workspace.root, update.title ?? update.toolCallId),
          ...(update.kind ? { kind: update.kind } : {}),
          status,
          ...(paths.length ? { paths } : {}),
          ...(tool ? { tool } : {}),
          ...details,
        });
        break;
      }
      case 'usage_update': {
        const cost = update.cost ? { amount: update.cost.amount, currency: update.cost.currency } : null;
        send({ type: 'usage', used: update.used, size: update.size, cost });
        void this.store
          .insertUsage(acpUsageRow(workspace.id, sessionId, { used: update.used, size: update.size, cost }, Date.now()))
          .catch((error: unknown) => this.log(`usage row not stored: ${describe(error).message}`));
        break;
      }
      default:
        break;
    }
  }

  /**
   * The session as OpenCode recorded it, upserted message by message (a message grows as a turn
   * goes on, so rows are replaced by id), in one transaction with the kept prompts its own user
   * messages now stand for: a prompt is never shown twice, and stays when the agent has no copy.
   */
  private async persist(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    request: TurnRequest,
    sessionId: string,
    kept: NewMessage,
    send: (e: AgentEvent) => void,
  ): Promise<void> {
    if (!settings.exporter) {
      send({ type: 'saved', messages: 1 });
      return;
    }
    let exported: SessionExport;
    try {
      const how = await this.launch(settings, workspace, {
        command: settings.exporter.command,
        args: settings.exporter.args.map((arg) => arg.replaceAll('{session}', sessionId)),
      });
      exported = await exportSession(how);
    } catch (error) {
      this.log(`session ${sessionId} could not be read back: ${describe(error).message}`);
      send({ type: 'saved', messages: 1 });
      return;
    }
    const rows = messageRows(exported);
    const theirs = new Set(
      rows.flatMap((row) => ((row.info as { role?: unknown }).role === 'user' ? [promptText(row.parts)] : [])),
    );
    let replaced = 0;
    await this.store.transaction(async (tx) => {
      for (const row of rows) await tx.upsertMessage({ ...row, workspaceId: request.workspaceId, sessionId });
      // This turn's prompt, and any a crash left behind, once the agent's record holds them.
      for (const stored of await tx.listMessages(request.workspaceId, sessionId)) {
        const parts = JSON.parse(String(stored.parts)) as unknown[];
        if (!isKeptPrompt(JSON.parse(String(stored.info)))) continue;
        if (!theirs.has(promptText(parts))) continue;
        await tx.deleteMessage(request.workspaceId, sessionId, stored.id);
        if (stored.id === kept.id) replaced++;
      }
    });
    send({ type: 'saved', messages: rows.length + 1 - replaced });
    await this.keepRuntime(settings, workspace, request.workspaceId, exported);
  }

  /**
   * Besides the messages: the subagents' sessions the turn's `task` calls made, each read back and
   * stored under its own id, and OpenCode's definitions for each agent and model not recorded yet
   * (session-runtime.ts). Neither may fail the turn: what cannot be kept is logged.
   */
  private async keepRuntime(
    settings: AgentSettings,
    workspace: WorkspaceAgent,
    workspaceId: string,
    exported: SessionExport,
  ): Promise<void> {
    const log = (line: string) => this.log(line);
    const keep = { store: this.store, workspaceId, exported, log };
    try {
      const children = await keepChildren({
        ...keep,
        exportSession: async (child) =>
          exportSession(
            await this.launch(settings, workspace, {
              command: settings.exporter!.command,
              args: settings.exporter!.args.map((arg) => arg.replaceAll('{session}', child)),
            }),
          ),
      });
      // Closing: nothing new is recorded (the session's next turn records what is missing).
      if (this.closing) return;
      const server = settings.runtimeServer ?? null;
      // The agent's own MCP server reaches OpenCode through ACP, not its configuration: it is
      // listed as the agent process has it (a grant of its own, dropped once recorded).
      const mcp = server ? reportMcp(this.reportGrants, workspaceId, this.reportOrigin) : null;
      // Asking OpenCode's own server takes seconds: the turn ends meanwhile; close() waits for it.
      const recording: Promise<void> = keepDefinitions({
        ...keep,
        children,
        definitions: server
          ? {
              launch: async (program) => this.launch(settings, workspace, program, mcp ?? undefined),
              serve: server,
              extraMcp: Object.fromEntries(
                (mcp?.servers ?? [])
                  .flatMap((s) => ('command' in s ? [[s.name, s] as const] : []))
                  .map(([name, s]) => [
                    name,
                    {
                      type: 'local' as const,
                      command: [s.command, ...s.args],
                      environment: Object.fromEntries(s.env.map((e) => [e.name, e.value])),
                    },
                  ]),
              ),
            }
          : null,
      })
        .then(
          () => {},
          (error: unknown) =>
            this.log(`the definitions of session ${exported.info.id} were not kept: ${describe(error).message}`),
        )
        .finally(() => {
          mcp?.revoke();
          this.recording.delete(recording);
        });
      this.recording.add(recording);
    } catch (error) {
      this.log(`the subagents of session ${exported.info.id} were not kept: ${describe(error).message}`);
    }
  }

  /** Definitions still being recorded after their turns ended. */
  private readonly recording = new Set<Promise<void>>();

  /** Resolves once every turn's definitions are recorded (tests; close). */
  async settled(): Promise<void> {
    while (this.recording.size > 0) await Promise.allSettled([...this.recording]);
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

/** A streamed call's input, output and error, bounded (the saved call keeps them whole). */
export const STREAMED_INPUT_CHARS = 16_000;
// Well above what the chat shows (8,000 characters), so that it can say how much more there is.
export const STREAMED_OUTPUT_CHARS = 64_000;

export function toolDetails(
  rawInput: unknown,
  rawOutput: unknown,
  failed: boolean,
): { input?: Record<string, unknown>; output?: string; error?: string } {
  const out: { input?: Record<string, unknown>; output?: string; error?: string } = {};
  if (typeof rawInput === 'object' && rawInput !== null && !Array.isArray(rawInput)) {
    const entries = Object.entries(rawInput as Record<string, unknown>);
    if (entries.length && JSON.stringify(rawInput).length <= STREAMED_INPUT_CHARS)
      out.input = rawInput as Record<string, unknown>;
  }
  if (typeof rawOutput === 'object' && rawOutput !== null) {
    const { output, error } = rawOutput as { output?: unknown; error?: unknown };
    const bounded = (text: string) =>
      text.length > STREAMED_OUTPUT_CHARS ? `${text.slice(0, STREAMED_OUTPUT_CHARS)}…` : text;
    if (typeof output === 'string' && output !== '') out.output = bounded(output);
    if (typeof error === 'string' && error !== '') out.error = bounded(error);
    else if (failed && typeof output === 'string' && output !== '') out.error = bounded(output);
  }
  return out;
}

/** The server's environment for the agent, without investibook's own secrets. */
export const agentEnv = withoutSecrets;

/** An error as the chat shows it: a code and one sentence. */
function describe(error: unknown): { code: string; message: string } {
  if (error instanceof TurnTimeout) return { code: error.code, message: error.message };
  if (error instanceof ProgramNotFound)
    return { code: 'agent_not_found', message: `${error.message} — check INVESTIBOOK_AGENT_COMMAND` };
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

/**
 * A tool's title as the chat shows it: OpenCode titles a read with its path relative to the
 * project root it found (`/` outside a git repository), so paths inside the workspace are made
 * workspace-relative.
 */
export function displayTitle(root: string, title: string): string {
  const absolute = title.startsWith('/') ? title : `/${title}`;
  return absolute === root || absolute.startsWith(`${root}/`) ? workspacePath(root, absolute) : title;
}

/** A path the agent reported, relative to the workspace when inside it. */
export function workspacePath(root: string, path: string): string {
  const inside = relative(root, path);
  return inside.startsWith('..') ? path : inside.split(sep).join('/');
}
