/**
 * How a turn fails, as the chat is told: one code and one sentence, never a stack trace.
 */
import { AgentProcessError } from './acp-process';
import { ProgramNotFound, SandboxError } from './sandbox';

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

/** `work`, or a TurnTimeout after `ms` (`onTimeout` first: the turn is cancelled). */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
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

/** An error as the chat shows it: a code and one sentence. */
export function describe(error: unknown): { code: string; message: string } {
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
  return describeRpc(error);
}

/** An error the agent answered over JSON-RPC, or any other. */
function describeRpc(error: unknown): { code: string; message: string } {
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
