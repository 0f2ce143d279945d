/**
 * A turn interrupted at its first finished tool call, the same way for every runtime: Stop (the
 * chat's cancel) or the agent's process killed. Each runtime's test drives it here and asserts
 * what its runtime promises; the script's turn must read a file and then wait (its `delayMs`),
 * so there is a finished call to interrupt and a turn still running when it is.
 */
import type { AgentClient } from '../support/agent-harness';
import type { AgentEvent } from '../../src/shared/agent';

export interface StoppedTurn {
  sessionId: string;
  /** Whether Stop was pressed (the first tool call finished). */
  asked: boolean;
  events: AgentEvent[];
  /** The agent's status (`GET …/agent`) asked the moment the turn said `done` (null: it never did). */
  statusAtDone: Promise<unknown> | null;
  /** The next prompt, sent in the same session the moment the turn said `done` (null: it never did). */
  next: Promise<{ status: number; events: AgentEvent[] }> | null;
}

/** Sends `text`, presses Stop at its first finished tool call, and sends `then` at its `done`. */
export async function stopAtFirstTool(
  client: AgentClient,
  text: string,
  then: string,
  options: { sessionId?: string } = {},
): Promise<StoppedTurn> {
  let sessionId = options.sessionId ?? '';
  let asked = false;
  let statusAtDone: StoppedTurn['statusAtDone'] = null;
  let next: StoppedTurn['next'] = null;
  const { events } = await client.prompt(text, {
    ...options,
    during: (event) => {
      if (event.type === 'turn') sessionId = event.sessionId;
      if (event.type === 'tool' && event.status === 'completed' && !asked) {
        asked = true;
        void client.api('/agent/cancel', { method: 'POST', body: JSON.stringify({ sessionId }) });
      }
      if (event.type === 'done' && !next) {
        // The turn is over for the user: not running, and the next prompt is taken (it waits
        // for the stopped turn's save rather than being refused as busy).
        statusAtDone = client.api('/agent').then((r) => r.json());
        next = client.prompt(then, { sessionId });
      }
    },
  });
  return { sessionId, asked, events, statusAtDone, next };
}

/** Sends `text` and kills the agent (`kill`) at its first finished tool call. */
export async function killAtFirstTool(
  client: AgentClient,
  text: string,
  kill: () => void,
  options: { sessionId?: string } = {},
): Promise<{ sessionId: string; killed: boolean; events: AgentEvent[] }> {
  let sessionId = options.sessionId ?? '';
  let killed = false;
  const { events } = await client.prompt(text, {
    ...options,
    during: (event) => {
      if (event.type === 'turn') sessionId = event.sessionId;
      if (event.type === 'tool' && event.status === 'completed' && !killed) {
        killed = true;
        kill();
      }
    },
  });
  return { sessionId, killed, events };
}
