/**
 * The agent processes, one per workspace in use — and not more than the machine can hold: a
 * process without a turn for `idleMs` is stopped (its sessions resume on the next prompt, loaded
 * again from the workspace's agent storage, as after a restart), and at most `maxRunning` run at
 * once. A prompt for a workspace without a process, when that many run, stops the one idle the
 * longest; when every one has a turn in progress, the prompt is refused before anything is stored
 * (`AgentsBusy`: 503 with Retry-After, and the chat gives the text back).
 */
import type { AcpProcess } from './acp-process';

/** A turn in progress: its session (provisional until the agent names one), and how to stop it. */
export interface Turn {
  sessionId: string;
  startedAt: Date;
  /** Stop was asked for (possibly before the agent had the prompt). */
  stopped: boolean;
  cancel: () => Promise<void>;
  /**
   * Set when a stopped turn has ended for the user (its `done` sent as soon as OpenCode answered
   * the cancel) while what it did is still being saved: settles once it is saved and gone.
   */
  saving?: Promise<void>;
}

/** One workspace's agent: its process (when one runs), its sessions, its turns in progress. */
export interface WorkspaceAgent {
  id: string;
  root: string;
  process: AcpProcess | null;
  starting: Promise<AcpProcess> | null;
  /** Sessions the running process has created or loaded. */
  sessions: Set<string>;
  /** Turns in progress, by session (each holds the agent: it is never stopped under one). */
  turns: Map<string, Turn>;
  /** Stops the process once idle. */
  idle: NodeJS.Timeout | null;
  /** When its last turn ended or began (the longest idle is stopped first). */
  lastUsed: number;
}

export class AgentsBusy extends Error {
  readonly code = 'agents_busy';
  /** Seconds after which a prompt may find an agent free. */
  readonly retryAfter = 30;
  constructor(readonly running: number) {
    super(
      `all ${running} agents this server runs at once have a turn in progress (INVESTIBOOK_AGENT_MAX_RUNNING): send the message again in a minute`,
    );
    this.name = 'AgentsBusy';
  }
}

export interface PoolOptions {
  idleMs: number;
  maxRunning: number;
  /** Starts a workspace's process (the bridge: its sandbox, its network, its MCP server). */
  start: (agent: WorkspaceAgent) => Promise<AcpProcess>;
  log?: (line: string) => void;
}

export class AgentPool {
  private readonly agents = new Map<string, WorkspaceAgent>();

  constructor(private readonly options: PoolOptions) {}

  /** The workspace's entry (made on first use; a moved folder gets a new process). */
  workspace(id: string, root: string): WorkspaceAgent {
    let found = this.agents.get(id);
    if (!found || found.root !== root) {
      if (found) this.stop(found);
      found = {
        id,
        root,
        process: null,
        starting: null,
        sessions: new Set(),
        turns: found?.turns ?? new Map(),
        idle: null,
        lastUsed: Date.now(),
      };
      this.agents.set(id, found);
    }
    return found;
  }

  get(id: string): WorkspaceAgent | undefined {
    return this.agents.get(id);
  }

  all(): WorkspaceAgent[] {
    return [...this.agents.values()];
  }

  /** Whether a workspace holds one of the places: a process running or starting, or a turn. */
  private occupies(agent: WorkspaceAgent): boolean {
    return agent.turns.size > 0 || agent.starting !== null || (agent.process?.running ?? false);
  }

  /**
   * Makes room for a turn of `agent` before its prompt is stored: nothing when it holds a place
   * already or one is free; else the process idle the longest is stopped; else AgentsBusy.
   */
  admit(agent: WorkspaceAgent): void {
    if (this.occupies(agent)) return;
    const occupied = this.all().filter((a) => a !== agent && this.occupies(a));
    if (occupied.length < this.options.maxRunning) return;
    const idle = occupied
      .filter((a) => a.turns.size === 0 && a.starting === null)
      .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) throw new AgentsBusy(occupied.length);
    this.options.log?.(`agent of workspace ${idle.id} stopped to make room for workspace ${agent.id}`);
    this.stop(idle);
  }

  /** The workspace's process, started (again) when there is none or it died. */
  async process(agent: WorkspaceAgent): Promise<AcpProcess> {
    if (agent.idle) clearTimeout(agent.idle);
    agent.idle = null;
    agent.lastUsed = Date.now();
    if (agent.process?.running) return agent.process;
    if (!agent.starting) {
      agent.process = null;
      agent.sessions.clear();
      agent.starting = this.options
        .start(agent)
        .then((started) => {
          agent.process = started;
          return started;
        })
        .finally(() => {
          agent.starting = null;
        });
    }
    return agent.starting;
  }

  /** After a turn: the process is stopped once it stays without one for `idleMs`. */
  turnEnded(agent: WorkspaceAgent): void {
    agent.lastUsed = Date.now();
    if (agent.idle) clearTimeout(agent.idle);
    agent.idle = setTimeout(() => {
      agent.idle = null;
      if (agent.turns.size === 0) this.stop(agent);
    }, this.options.idleMs);
    agent.idle.unref();
  }

  /** Stops a workspace's process now (its sessions are loaded again by the next one). */
  private stop(agent: WorkspaceAgent): void {
    if (agent.idle) clearTimeout(agent.idle);
    agent.idle = null;
    const running = agent.process;
    agent.process = null;
    agent.sessions.clear();
    void running?.close();
  }

  /** Stops every process (the server closes). */
  async close(): Promise<void> {
    await Promise.all(
      this.all().map(async (agent) => {
        if (agent.idle) clearTimeout(agent.idle);
        const running = agent.process ?? (await agent.starting?.catch(() => null));
        await running?.close();
      }),
    );
    this.agents.clear();
  }
}
