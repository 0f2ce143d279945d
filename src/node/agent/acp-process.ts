/**
 * One agent process spoken to over ACP (Agent Client Protocol: newline-delimited JSON-RPC on
 * stdio), through the maintained SDK. Starts the command, initializes the connection, and
 * routes `session/update` notifications to whoever is prompting that session. Knows nothing
 * about investibook's storage: the bridge and the recorder build on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  type ContentBlock,
  type McpServer,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';

export interface AgentCommand {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface AcpProcessOptions extends AgentCommand {
  /** Answers the agent's permission requests (default: reject once). */
  onPermission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  /** Lines the agent writes to stderr (its log). */
  onStderr?: (line: string) => void;
  /** How long the process may take to answer `initialize`. */
  startTimeoutMs?: number;
  /** MCP servers the agent starts for every session it opens (ACP `mcpServers`). */
  mcpServers?: readonly McpServer[];
  /** ACP `_meta` sent with every session it opens or re-opens (a runtime's own session options). */
  sessionMeta?: Record<string, unknown>;
}

export type UpdateListener = (update: SessionUpdate) => void;

export class AgentProcessError extends Error {
  constructor(
    message: string,
    readonly code: 'agent_not_found' | 'agent_exited' | 'agent_start_timeout' | 'agent_protocol' | 'agent_unsupported',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentProcessError';
  }
}

/** Rejects the first permission option that is a rejection, else cancels. */
export async function rejectPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
  const reject =
    request.options.find((o) => o.kind === 'reject_once') ?? request.options.find((o) => o.kind === 'reject_always');
  return reject
    ? { outcome: { outcome: 'selected', optionId: reject.optionId } }
    : { outcome: { outcome: 'cancelled' } };
}

export async function allowPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
  const allow =
    request.options.find((o) => o.kind === 'allow_once') ?? request.options.find((o) => o.kind === 'allow_always');
  return allow ? { outcome: { outcome: 'selected', optionId: allow.optionId } } : { outcome: { outcome: 'cancelled' } };
}

interface SessionOpening {
  mcpServers: McpServer[];
  _meta?: Record<string, unknown>;
}

const sessionOpening = (options: AcpProcessOptions): SessionOpening => ({
  mcpServers: [...(options.mcpServers ?? [])],
  ...(options.sessionMeta ? { _meta: options.sessionMeta } : {}),
});

export class AcpProcess {
  private readonly listeners = new Map<string, UpdateListener>();
  private stderrTail: string[] = [];
  /** What every session/new and session/load carries besides its folder. */
  private opening: SessionOpening = { mcpServers: [] };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly child: ChildProcess,
    private connection: ClientConnection | null,
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the agent wrote to stderr, for error messages. */
  get recentLog(): string {
    return this.stderrTail.join('\n');
  }

  static async start(options: AcpProcessOptions): Promise<AcpProcess> {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new AgentProcessError(`agent command not found: ${options.command}`, 'agent_not_found', { cause: error })
            : new AgentProcessError(`cannot start the agent (${error.code ?? error.message})`, 'agent_exited', {
                cause: error,
              }),
        ),
      );
    });
    await spawned;
    const agent = new AcpProcess(child, null);
    agent.opening = sessionOpening(options);
    let partial = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        options.onStderr?.(line);
        agent.stderrTail.push(line);
        if (agent.stderrTail.length > 20) agent.stderrTail.shift();
      }
    });
    // Writes after the process died must not crash the server.
    child.stdin!.on('error', () => {});
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    const app = client({ name: 'investibook' })
      .onRequest(methods.client.session.requestPermission, ({ params }) =>
        (options.onPermission ?? rejectPermission)(params),
      )
      .onNotification(methods.client.session.update, ({ params }) => {
        agent.listeners.get(params.sessionId)?.(params.update);
      });
    agent.connection = app.connect(stream);
    const timeout = options.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        agent.connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: {},
          clientInfo: { name: 'investibook', version: '0.1.0' },
        }),
        agent.exited.then(({ code, signal }) => {
          throw new AgentProcessError(
            `the agent exited during start-up (${signal ?? `code ${code}`})${agent.recentLog ? `: ${lastLine(agent.recentLog)}` : ''}`,
            'agent_exited',
          );
        }),
        new Promise((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new AgentProcessError(
                  `the agent did not answer initialize within ${timeout} ms`,
                  'agent_start_timeout',
                ),
              ),
            timeout,
          );
        }),
      ]);
    } catch (error) {
      await agent.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return agent;
  }

  private get agent() {
    if (!this.connection) throw new AgentProcessError('not connected', 'agent_protocol');
    return this.connection.agent;
  }

  async newSession(cwd: string): Promise<string> {
    const response = await this.agent.request(methods.agent.session.new, { cwd, ...this.opening });
    return response.sessionId;
  }

  /** Re-opens a session the agent kept (after a restart). Its history replays as updates, ignored here. */
  async loadSession(sessionId: string, cwd: string): Promise<void> {
    await this.agent.request(methods.agent.session.load, { sessionId, cwd, ...this.opening });
  }

  /**
   * Sends one prompt and calls `onUpdate` with every update of the turn, until the agent
   * answers. Rejects if the process exits first.
   */
  async prompt(sessionId: string, prompt: string | ContentBlock[], onUpdate: UpdateListener): Promise<PromptResponse> {
    this.listeners.set(sessionId, onUpdate);
    const blocks: ContentBlock[] = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    const died = ({ code, signal }: { code: number | null; signal: NodeJS.Signals | null }) =>
      new AgentProcessError(
        `the agent exited during the turn (${signal ?? `code ${code}`})${this.recentLog ? `: ${lastLine(this.recentLog)}` : ''}`,
        'agent_exited',
      );
    try {
      return await Promise.race([
        this.agent.request(methods.agent.session.prompt, { sessionId, prompt: blocks }),
        this.exited.then((exit) => {
          throw died(exit);
        }),
      ]);
    } catch (error) {
      // A dead process closes the connection first: say that it died, not that the call failed.
      const exit = await Promise.race([this.exited, new Promise<null>((done) => setTimeout(() => done(null), 200))]);
      throw exit ? died(exit) : error;
    } finally {
      // A later prompt in the same session may have taken over (after a timeout): leave its listener.
      if (this.listeners.get(sessionId) === onUpdate) this.listeners.delete(sessionId);
    }
  }

  async cancel(sessionId: string): Promise<void> {
    await this.agent.notify(methods.agent.session.cancel, { sessionId });
  }

  async close(): Promise<void> {
    this.connection?.close();
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

function lastLine(log: string): string {
  const lines = log.trim().split('\n');
  return lines[lines.length - 1]!.slice(0, 300);
}
