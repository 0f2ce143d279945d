/**
 * The write side of an agent runtime: what the live agent (the bridge, confinement, the recorder)
 * needs of one runtime, so that nothing outside the runtime's own folder knows how it is
 * configured, where it keeps its sessions or what it records beside them. The read side is the
 * report's `AgentRuntime` (core/runtime.ts); a runtime is both, chosen by
 * INVESTIBOOK_AGENT_RUNTIME (runtime-registry.ts), never by its command line.
 *
 * What stays the bridge's, for every runtime: ACP (acp-process.ts), the pool of processes, the
 * turns and their events, the server's answer to a permission asked over ACP, the sandbox and the
 * network namespace with its egress proxy (confinement.ts, sandbox.ts, network/), investibook's
 * own MCP server, the kept prompt, usage rows from `usage_update`.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { RuntimeName } from '../../shared/runtimes';
import type { NewMessage, Store } from '../storage/store';
import type { AgentNetwork, NetworkNeeds } from './network/agent-network';
import type { EgressPolicy } from './network/egress-policy';
import type { AgentSettings, Program } from './settings';

export type { Program, RuntimeName };

/**
 * The agents' state (their sessions, tool outputs, caches: every message again) is owner-only;
 * what a runtime writes inside is out of other users' reach through these folders.
 */
export const OWNER_ONLY = 0o700;

/** How a program runs as a workspace's agent (confinement.ts makes it). */
export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Said once when the agent starts (a workspace config that could not be read, say). */
  warnings: string[];
  /**
   * The password of every HTTP server the program opens (OpenCode's own, which `opencode acp`
   * runs too): made for this process, known to the bridge and to the process alone.
   */
  secret: { username: string; password: string };
  /** The ways out opened for it (none without egress): closed once the process ended. */
  network: AgentNetwork | null;
  /** The report's origin as the program reaches it (inside its network), when asked for. */
  reportOrigin: string | null;
  /** The socket that reaches the program's inbound port, when asked for. */
  inboundSocket: string | null;
}

export interface LaunchOptions {
  /** More files or folders the program may read (what the MCP servers it starts run from). */
  extraRead?: readonly string[];
  /**
   * Its network besides its own loopback: the egress of the workspace's policy (the agent, the
   * definitions recorder), its own report, a port the server asks. Absent: none at all (exports,
   * imports, an MCP server asked for its tools).
   */
  network?: Omit<NetworkNeeds, 'policy'> | null;
}

/** One workspace's agent, as confinement has made its private folders (owner-only). */
export interface RuntimeHome {
  settings: AgentSettings;
  workspace: { id: string; root: string };
  /** The workspace agent's own state folder: HOME and the XDG folders are inside it. */
  home: string;
  dirs: {
    HOME: string;
    XDG_CONFIG_HOME: string;
    XDG_DATA_HOME: string;
    XDG_STATE_HOME: string;
    XDG_CACHE_HOME: string;
  };
  /** The server's environment without investibook's own secrets (confinement.withoutSecrets). */
  base: NodeJS.ProcessEnv;
  /** The password of every HTTP server the program opens, made for this process. */
  secret: { username: string; password: string };
}

/** What a runtime adds to every program run as the workspace's agent (its ACP process, its read-back, …). */
export interface RuntimeLaunch {
  /** Variables set over `base` and `dirs`: its configuration (the server's permission policy in its own terms), offline switches. */
  env: NodeJS.ProcessEnv;
  /** Variables of `base` removed (a workspace could otherwise override the policy through them). */
  unset?: readonly string[];
  /** Files and folders the sandbox binds read-only (the operator's configuration, credentials, the runtime's own install). */
  readOnly: readonly string[];
  /** Folders of the workspace the runtime writes into itself: written into its state instead (a layer). */
  layered?: readonly { path: string; storage: string }[];
  /** Said once when the agent starts (a workspace configuration that could not be read). */
  warnings: readonly string[];
}

/** A message row as a runtime reads it back from its own store: in its own shapes, tagged with its name. */
export type RuntimeRow = Omit<NewMessage, 'workspaceId'> & { runtime: RuntimeName };

/** What a runtime has to record after a turn's rows are saved (in the background: the turn has ended). */
export interface RecordContext {
  store: Store;
  workspaceId: string;
  log: (line: string) => void;
  /** True once the server is closing: record nothing new (the session's next turn does). */
  closing(): boolean;
  /** investibook's own MCP server as the agent process is given it over ACP (a grant of its own, revoke once recorded). */
  reportMcp(): { servers: readonly McpServer[]; revoke: () => void };
  /** Runs a program as the workspace's agent, with a network when asked; `close` once it ended. */
  launch(program: Program, needs?: { inbound?: number | undefined }): Promise<Launch & { close: () => Promise<void> }>;
  /** Whether the agent runs in its own network namespace (INVESTIBOOK_AGENT_SANDBOX is not off). */
  isolatedNetwork: boolean;
  /** Whether the agent itself could reach a URL (a remote MCP server is asked only then). */
  reaches(url: string): boolean;
}

/** A session read back after a turn. */
export interface ReadBack {
  /** Its messages, every one (a message grows as a turn goes on: rows are replaced by id). */
  rows: RuntimeRow[];
  /** The prompts the user typed, as the runtime recorded them: a kept prompt it holds is dropped. */
  prompts: readonly string[];
  /**
   * What else the session made (its subagents' sessions, its definitions), recorded after the
   * rows are saved and before the turn's last event; what takes longer is `later` (the bridge
   * waits for it on close and in tests). `sessions`: every session whose texts are then counted
   * once (this one and its subagents'). None: only this session is counted.
   */
  record?: (context: RecordContext) => Promise<{ sessions: readonly string[]; later?: Promise<void> }>;
}

/** What reading a session back may use. */
export interface ReadBackContext {
  settings: AgentSettings;
  workspace: { id: string; root: string };
  sessionId: string;
  /** Runs a program as the workspace's agent (its sandbox, its storage); no network. */
  launch(program: Program, options?: LaunchOptions): Promise<Launch>;
  log: (line: string) => void;
}

/** What a runtime's revert may use: the session, the message it goes back to before, how to run a program as the agent. */
export interface RevertContext {
  settings: AgentSettings;
  workspace: { id: string; root: string };
  sessionId: string;
  /** The first message dropped: the session goes back to just before it. */
  messageId: string;
  /** Runs a program as the workspace's agent (its sandbox, its storage), an inbound port when asked; `close` once it ended. */
  launch: RecordContext['launch'];
  /** Whether the agent runs in its own network namespace. */
  isolatedNetwork: boolean;
}

/** A revert the runtime could not make, in one sentence (the route streams it as the error). */
export class RevertFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RevertFailed';
  }
}

/** A session as a runtime exports it (`opencode export`): its info, then its messages with their parts. */
export interface ExportedSession {
  info: Record<string, unknown> & { id: string; directory?: string; title?: string };
  messages: ExportedSessionMessage[];
}

export interface ExportedSessionMessage {
  info: Record<string, unknown> & { id: string; sessionID?: string };
  parts: (Record<string, unknown> & { id?: string })[];
}

/** A runtime's own session exports (what the demo's recordings hold), read as the runtime reads them back. */
export interface SessionExports {
  /** The outer shape checked: throws one sentence when the value is not an export. */
  check(value: unknown): ExportedSession;
  /** The newest time the runtime recorded anywhere in a message (it changes whenever the message does). */
  latestTime(message: ExportedSessionMessage): number;
  /** Its messages as rows, in the runtime's own shapes, exactly as a turn's read-back makes them. */
  rows(exported: ExportedSession): RuntimeRow[];
}

export interface RuntimeWriteSide {
  readonly name: RuntimeName;
  /** Its name in words ("OpenCode", "Claude Code"). */
  readonly title: string;
  /** The user name of the HTTP servers its programs open, when the runtime fixes one (the password is made per process). */
  readonly serverUser?: string;
  /**
   * The program that speaks ACP on standard input and output: INVESTIBOOK_AGENT_COMMAND when set,
   * else the runtime's own (installed on demand). Rejects with one sentence when this runtime
   * cannot be the live agent (yet).
   */
  program(settings: AgentSettings, log: (line: string) => void): Promise<Program>;
  /** Its environment, configuration and sandbox needs, for every program run as the workspace's agent. */
  prepare(home: RuntimeHome): RuntimeLaunch;
  /** Where it may connect: its model providers as the operator's configuration names them, and the operator's own hosts. */
  egress(
    settings: AgentSettings,
    workspace: { id: string; root: string },
  ): { policy: EgressPolicy; warnings: string[] };
  /** ACP `_meta` of every session it opens (its adapter's own session options), when it has some. */
  readonly sessionMeta?: Record<string, unknown>;
  /**
   * Whether its own store holds a session, read without running anything (absent: the agent is
   * asked, ACP `session/load`). False spares what asking costs: Claude Code's adapter starts its
   * 330 MB program and investibook's MCP server to find it has no such session.
   */
  keeps?(settings: AgentSettings, workspace: { id: string; root: string }, sessionId: string): boolean;
  /** A streamed call's tool by the name the model is sent, when the runtime's updates carry it (absent: a title of one word). */
  toolName?(update: { _meta?: Record<string, unknown> | null }): string | null;
  /**
   * How it reverts a session to before one of its messages (a report's revert), with the
   * runtime's own API, the way its own interface would; null when it cannot as configured (a
   * command that is not its own); absent: this runtime has no revert here.
   */
  reverter?(settings: AgentSettings): ((context: RevertContext) => Promise<void>) | null;
  /** After a turn: the session from the runtime's own store; null when it cannot be read (usage rows only; the kept prompt stands). */
  readBack(context: ReadBackContext): Promise<ReadBack | null>;
  /** Its sessions as it exports them, when it has an export of its own (the demo seeds OpenCode's recordings). */
  readonly exports?: SessionExports;
}
