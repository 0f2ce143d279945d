/**
 * A report's revert on OpenCode. The pinned OpenCode 1.18.33's ACP agent has no revert, but its
 * own server does (`POST /session/{id}/revert` with the message's id: what its `/undo` and
 * timeline use): a second `opencode serve` over the agent's state, run as the agent is
 * (opencode-server.ts: its sandbox, loopback only, a password of its own), marks the session
 * reverted to before that message and restores the files the later turns changed. The running
 * ACP agent follows it: at the session's next prompt OpenCode drops the reverted messages.
 */
import type { RevertContext } from '../runtime-seam';
import { RevertFailed } from '../runtime-seam';
import type { AgentSettings } from '../settings';
import { startServer } from './opencode-server';

export function opencodeReverter(settings: AgentSettings): ((context: RevertContext) => Promise<void>) | null {
  const serve = settings.runtimeServer;
  // A command that is not OpenCode's own `acp` has no OpenCode server beside it to ask.
  if (!serve) return null;
  return async (context) => {
    let server: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      // Its start is bounded as the agent's own is (`startTimeoutMs`, else the server's default).
      server = await startServer({
        launch: context.launch,
        isolatedNetwork: context.isolatedNetwork,
        serve,
        ...(settings.startTimeoutMs ? { startTimeoutMs: settings.startTimeoutMs } : {}),
      });
      const session = await server.post<{ revert?: { messageID?: string } }>(
        `/session/${encodeURIComponent(context.sessionId)}/revert`,
        { messageID: context.messageId },
      );
      // OpenCode answers the session; one it did not mark reverted there was not reverted.
      if (session.revert?.messageID !== context.messageId)
        throw new RevertFailed(`OpenCode did not revert session ${context.sessionId} to before ${context.messageId}`);
    } catch (error) {
      if (error instanceof RevertFailed) throw error;
      throw new RevertFailed(
        `OpenCode's server could not revert the session: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      await server?.stop();
    }
  };
}
