/**
 * One turn, from its kept prompt to its last event: the agent process of the workspace (started
 * when none runs), the ACP session opened or loaded, the prompt sent and its updates streamed as
 * chat events (turn-events.ts), every `usage_update` stored at once, and — ended, cancelled or
 * failed — the session read back from the runtime's own store and saved (persist-turn.ts), then
 * what the runtime records beside it, in the background (record-runtime.ts).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../../shared/agent';
import type { NewMessage, Store } from '../storage/store';
import { acpUsageRow } from '../usage';
import type { AcpProcess } from './acp-process';
import type { AgentLauncher } from './agent-launcher';
import type { AgentPool, Turn, WorkspaceAgent } from './agent-pool';
import { moveKept, persistTurn } from './persist-turn';
import type { RuntimeRecorder } from './record-runtime';
import type { RuntimeWriteSide } from './runtime-seam';
import type { AgentSettings } from './settings';
import { describe, withTimeout } from './turn-errors';
import { turnEvents } from './turn-events';
import { workspaceContext } from './workspace-context';

export interface TurnRequest {
  workspaceId: string;
  root: string;
  text: string;
  /** The chat session to continue (absent: a new session). */
  sessionId?: string | undefined;
  /**
   * A runtime command (`/compact`), not a message: OpenCode records what it does (a compaction
   * part, the summary), so no prompt of the user's is kept for it — it would stand in the chat
   * as a message nobody wrote.
   */
  command?: boolean;
}

/** A turn whose prompt is kept and whose session is taken, not yet run. */
export interface AcceptedTurn {
  request: TurnRequest;
  kept: NewMessage;
  turn: Turn;
  turnId: string;
}

/** What a turn uses of the bridge. */
export interface TurnNeeds {
  settings: AgentSettings;
  runtime: RuntimeWriteSide;
  store: Store;
  pool: AgentPool;
  launcher: AgentLauncher;
  recorder: RuntimeRecorder;
  /** Where each session's events go while its turn runs (permission questions find their chat). */
  listeners: Map<string, (event: AgentEvent) => void>;
  log: (line: string) => void;
}

export class TurnRun {
  private readonly workspace: WorkspaceAgent;
  private readonly placeholder: string;
  private kept: NewMessage;
  private agent: AcpProcess | null = null;
  private sessionId: string | null = null;
  private promptReached = false;
  private turnSent = false;
  /** Whether the agent opened a new session for this turn (it gets the workspace context). */
  private newSession = false;
  /** What opening the session said (a session the agent no longer has). */
  private openNote: string | undefined;
  private saved = () => {};

  constructor(
    private readonly needs: TurnNeeds,
    private readonly accepted: AcceptedTurn,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    const { request, turn } = accepted;
    this.workspace = needs.pool.workspace(request.workspaceId, request.root);
    this.placeholder = turn.sessionId;
    this.kept = accepted.kept;
    turn.cancel = async () => {
      turn.stopped = true;
      if (this.agent && this.sessionId) await this.agent.cancel(this.sessionId).catch(() => {});
    };
  }

  /** Runs the turn to its end; never throws (every failure is an event). */
  async run(): Promise<void> {
    try {
      await this.open();
      if (this.accepted.request.command && this.newSession) {
        // A command changes the session it names; one the agent no longer has is not made anew.
        await this.finish({
          type: 'error',
          code: 'session_gone',
          message: this.openNote ?? 'the agent does not have this session',
        });
        return;
      }
      if (this.accepted.turn.stopped) {
        // Stopped before the agent got the prompt: the text is kept all the same.
        await this.finish({ type: 'done', stopReason: 'cancelled' });
        return;
      }
      await this.prompt();
    } catch (error) {
      // The agent could not be started, or the session not opened: the prompt never reached it.
      const problem = describe(error);
      const { request, turnId } = this.accepted;
      this.needs.log(`agent turn failed in workspace ${request.workspaceId}: ${problem.message}`);
      this.sessionId ??= this.kept.sessionId;
      // The chat learns which session its message is kept in, even when the agent never opened one.
      if (!this.turnSent)
        this.send({ type: 'turn', turnId, sessionId: this.sessionId, newSession: !request.sessionId });
      await this.finish({ type: 'error', ...problem });
    } finally {
      this.release();
    }
  }

  /** A closed stream must not stop the turn: emit never throws into here. */
  private send = (event: AgentEvent): void => {
    try {
      this.emit(event);
    } catch {
      // the browser went away; the turn goes on
    }
  };

  /** The agent process started, the session opened, the kept prompt moved to it, the chat told. */
  private async open(): Promise<void> {
    const { request, turn, turnId } = this.accepted;
    const { pool, store, runtime, settings } = this.needs;
    this.agent = await pool.process(this.workspace);
    const keeps = (id: string) => runtime.keeps?.(settings, this.workspace, id) ?? true;
    const opened = await openSession(this.agent, this.workspace, request.sessionId, keeps);
    const sessionId = opened.sessionId;
    this.sessionId = sessionId;
    if (sessionId !== this.kept.sessionId && !request.command) this.kept = await moveKept(store, this.kept, sessionId);
    if (sessionId !== this.placeholder) {
      if (this.workspace.turns.get(this.placeholder) === turn) this.workspace.turns.delete(this.placeholder);
      turn.sessionId = sessionId;
      this.workspace.turns.set(sessionId, turn);
    }
    this.send({
      type: 'turn',
      turnId,
      sessionId,
      newSession: opened.isNew,
      ...(opened.note ? { note: opened.note } : {}),
    });
    this.turnSent = true;
    this.newSession = opened.isNew;
    this.openNote = opened.note;
  }

  /** The prompt sent and its updates streamed, until the agent answers, fails or times out. */
  private async prompt(): Promise<void> {
    const { request, turn } = this.accepted;
    const { settings, listeners } = this.needs;
    const sessionId = this.sessionId!;
    const blocks: ContentBlock[] = [{ type: 'text', text: request.text }];
    const context = this.newSession ? workspaceContext(this.workspace.root) : null;
    // For the model only: OpenCode keeps it as a synthetic part, the chat never shows it.
    if (context) blocks.push({ type: 'text', text: context, annotations: { audience: ['assistant'] } });
    this.promptReached = true;
    listeners.set(sessionId, this.send);
    const toEvent = turnEvents(
      this.workspace.root,
      (usage) => this.keepUsage(sessionId, usage),
      this.needs.runtime.toolName,
    );
    let result: { stopReason: string };
    try {
      result = await withTimeout(
        this.agent!.prompt(sessionId, blocks, (update) => {
          const event = toEvent(update);
          if (event) this.send(event);
        }),
        settings.turnTimeoutMs,
        () => void turn.cancel(),
      );
    } catch (error) {
      const problem = describe(error);
      this.needs.log(`agent turn failed in workspace ${request.workspaceId}: ${problem.message}`);
      await this.finish({ type: 'error', ...problem });
      return;
    }
    if (turn.stopped) {
      // Stop: the agent has answered the cancel, so the turn ends for the user now; saving what
      // it did (reading it back, its subagents: seconds) follows, and `saved` after `done` says
      // when it is in the history. The session's next prompt waits for that save.
      turn.saving = new Promise((resolve) => (this.saved = resolve));
      this.send({ type: 'done', stopReason: result.stopReason });
      await this.finish(null);
      return;
    }
    await this.finish({ type: 'done', stopReason: result.stopReason });
  }

  private keepUsage(sessionId: string, usage: Parameters<typeof acpUsageRow>[2]): void {
    const workspaceId = this.workspace.id;
    void this.needs.store
      .insertUsage(acpUsageRow(workspaceId, sessionId, usage, Date.now()))
      .catch((error: unknown) => this.needs.log(`usage row not stored: ${describe(error).message}`));
  }

  /** The turn's end: the agent's record of it saved (the kept prompt stays when there is none), then its last event, if not sent yet. */
  private async finish(last: AgentEvent | null): Promise<void> {
    try {
      if (this.promptReached && this.sessionId) await this.save(this.sessionId);
      else this.send({ type: 'saved', messages: 1 });
      if (last) this.send(last);
    } catch (error) {
      // Saving failed (the database is busy or gone): the chat is told; the turn still ends.
      const { message } = describe(error);
      this.needs.log(`agent turn in workspace ${this.workspace.id} not saved: ${message}`);
      this.send({ type: 'error', code: 'not_saved', message: `the turn could not be saved: ${message}` });
    }
  }

  /** The turn's messages saved, then what the runtime records beside them (in the background). */
  private async save(sessionId: string): Promise<void> {
    const { store, runtime, launcher, recorder, log } = this.needs;
    const { saved, read } = await persistTurn(
      store,
      { workspaceId: this.workspace.id, sessionId, kept: this.kept },
      () => runtime.readBack(launcher.readBackContext(this.workspace, sessionId)),
      log,
    );
    this.send({ type: 'saved', messages: saved });
    if (read) await recorder.keep(read, launcher.recordContext(this.workspace), sessionId);
  }

  /** The turn's entries dropped: the workspace's agent may idle; a waiting prompt may go on. */
  private release(): void {
    const { turn } = this.accepted;
    const { listeners, pool } = this.needs;
    if (this.sessionId && listeners.get(this.sessionId) === this.send) listeners.delete(this.sessionId);
    // Only this turn's own entries: the placeholder may already name another turn's session.
    for (const key of [turn.sessionId, this.placeholder]) {
      if (this.workspace.turns.get(key) === turn) this.workspace.turns.delete(key);
    }
    pool.turnEnded(this.workspace);
    this.saved();
  }
}

/**
 * Continues the asked session when the agent has it (loading it after a restart), else a new one;
 * one its runtime's store does not hold (`keeps`) is not asked for.
 */
async function openSession(
  agent: AcpProcess,
  workspace: WorkspaceAgent,
  asked: string | undefined,
  keeps: (sessionId: string) => boolean,
): Promise<{ sessionId: string; isNew: boolean; note?: string }> {
  if (asked && workspace.sessions.has(asked)) return { sessionId: asked, isNew: false };
  let note: string | undefined;
  if (asked) {
    if (keeps(asked)) {
      try {
        await agent.loadSession(asked, workspace.root);
        workspace.sessions.add(asked);
        return { sessionId: asked, isNew: false };
      } catch {
        // the agent does not have it after all: a new session, said below
      }
    }
    note = `The agent does not have this conversation (it was recorded elsewhere, or the agent's storage was reset): this turn starts a new one.`;
  }
  const sessionId = await agent.newSession(workspace.root);
  workspace.sessions.add(sessionId);
  return { sessionId, isNew: true, ...(note ? { note } : {}) };
}
