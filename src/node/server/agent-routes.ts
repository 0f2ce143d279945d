/**
 * The live agent's routes, behind the one access check like every workspace route:
 *   GET  …/agent           its status (configured? turns in progress)
 *   POST …/agent/prompt    a turn, streamed back as Server-Sent Events (src/shared/agent.ts)
 *   POST …/agent/cancel    stops the turn in progress in a session
 *   POST …/agent/compact   a report's change: summarizes a session now (OpenCode's /compact)
 *   POST …/agent/new-session  a report's change: a new session started with the report's hand-off
 *   POST …/agent/revert    a report's change: a session reverted to before a message (the runtime's own revert)
 * `/debug` never comes here: the chat's command registry runs it locally.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import {
  agentCancelRequestSchema,
  agentCompactRequestSchema,
  agentNewSessionRequestSchema,
  agentPromptRequestSchema,
  agentRevertRequestSchema,
  type AgentEvent,
} from '../../shared/agent';
import { AgentsBusy, RevertUnsupported, TurnInProgress, type AgentBridge } from '../agent/bridge';
import { AppError } from '../errors';
import { resolveSession } from '../sessions';
import type { Store, WorkspaceRow } from '../storage/store';
import type { AppEnv } from './access';
import { requireJson } from './guards';
import { jsonBody } from './json-body';

const MAX_PROMPT_BODY = 512 * 1024;

/**
 * Why no live agent may start in this workspace, in words, or null: a folder that only an
 * imported file named is never handed to an agent until the operator gives it (contract §8).
 */
export function unavailable(workspace: WorkspaceRow, store: Store): string | null {
  if (workspace.root_origin !== 'export') return null;
  const folder = store.resolveRoot(workspace.root_path);
  return `No live agent runs in workspace ${workspace.id}: its folder ${folder} came from an imported session file, not from you. To attach one, the operator gives the folder: investibook import FILE --workspace ${workspace.id} --root ${folder}`;
}

export function agentRoutes(bridge: AgentBridge, store: Store): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const limit = bodyLimit({
    maxSize: MAX_PROMPT_BODY,
    onError: () => {
      throw new AppError('too_large', 'payload_too_large', `Request body over ${MAX_PROMPT_BODY} bytes`);
    },
  });

  routes.get('/agent', (c) => {
    const workspace = c.get('workspace');
    const why = unavailable(workspace, store);
    return c.json({ ...bridge.status(workspace.id), ...(why && bridge.configured ? { unavailable: why } : {}) });
  });

  routes.post('/agent/prompt', requireJson, limit, async (c) => {
    const request = await jsonBody(c, agentPromptRequestSchema);
    return streamTurn(c, bridge, store, { text: request.text, sessionId: request.sessionId });
  });

  // A report's changes, made on the live agent (contract §7 `change.request`, core/suggestions.ts).
  routes.post('/agent/compact', requireJson, limit, async (c) => {
    const { sessionId } = await jsonBody(c, agentCompactRequestSchema);
    // OpenCode's ACP agent runs a prompt of `/compact` as its summarize: a command, never kept as a message.
    return streamTurn(c, bridge, store, { text: '/compact', sessionId, command: true });
  });

  routes.post('/agent/new-session', requireJson, limit, async (c) => {
    const { sessionId, text } = await jsonBody(c, agentNewSessionRequestSchema);
    // The session handed off from must be this workspace's; the hand-off opens a new one.
    return streamTurn(c, bridge, store, { text, from: sessionId });
  });

  routes.post('/agent/revert', requireJson, limit, async (c) => {
    const { sessionId, messageId } = await jsonBody(c, agentRevertRequestSchema);
    const workspace = c.get('workspace');
    await checkAgent(c, bridge, store, [sessionId]);
    if (!(await store.listMessages(workspace.id, sessionId)).some((m) => m.id === messageId))
      throw new AppError('not_found', 'no_message', `session ${sessionId} has no message ${messageId}`);
    const request = { workspaceId: workspace.id, root: store.resolveRoot(workspace.root_path), sessionId, messageId };
    let accepted;
    try {
      accepted = bridge.takeForRevert(request);
    } catch (error) {
      if (error instanceof TurnInProgress) throw new AppError('conflict', 'turn_in_progress', error.message);
      if (error instanceof RevertUnsupported) throw new AppError('conflict', error.code, error.message);
      throw error;
    }
    return streamEvents(c, (emit) => bridge.revert(accepted, emit));
  });

  routes.post('/agent/cancel', requireJson, limit, async (c) => {
    const { sessionId } = await jsonBody(c, agentCancelRequestSchema);
    if (!(await bridge.cancel(c.get('workspace').id, sessionId))) {
      throw new AppError('not_found', 'no_turn', `no turn is in progress in session ${sessionId}`);
    }
    return c.json({ cancelled: true }, 202);
  });

  return routes;
}

/**
 * Starts a turn and streams it back (Server-Sent Events): the prompt kept first, so that a
 * refusal (busy, no room in the database) answers before anything is streamed. `from`: a
 * session that must exist in this workspace, though the turn opens a new one.
 */
async function streamTurn(
  c: Context<AppEnv>,
  bridge: AgentBridge,
  store: Store,
  asked: { text: string; sessionId?: string | undefined; from?: string; command?: boolean },
): Promise<Response> {
  const workspace = c.get('workspace');
  await checkAgent(c, bridge, store, [asked.sessionId, asked.from]);
  const root = store.resolveRoot(workspace.root_path);
  const turn = {
    workspaceId: workspace.id,
    root,
    text: asked.text,
    sessionId: asked.sessionId,
    ...(asked.command ? { command: true } : {}),
  };
  let kept;
  try {
    // The prompt is stored before anything is streamed: a database that cannot take it
    // answers here (503, 507), as does a server whose agents are all busy (503 agents_busy,
    // nothing stored), and the chat keeps the text.
    kept = await bridge.keepPrompt(turn);
  } catch (error) {
    if (error instanceof TurnInProgress) throw new AppError('conflict', 'turn_in_progress', error.message);
    // Refused before anything is stored: the chat gives the text back to the composer.
    if (error instanceof AgentsBusy)
      throw new AppError('unavailable', error.code, error.message, { retryAfter: error.retryAfter });
    throw error;
  }
  return streamEvents(c, (emit) => bridge.run(kept, emit));
}

/**
 * What every agent route checks before anything happens: an agent attached, one allowed in this
 * workspace, and the sessions named this workspace's (another's answers like one that does not exist).
 */
async function checkAgent(
  c: Context<AppEnv>,
  bridge: AgentBridge,
  store: Store,
  sessions: readonly (string | undefined)[],
): Promise<void> {
  const workspace = c.get('workspace');
  if (!bridge.configured) {
    throw new AppError('conflict', 'agent_not_configured', bridge.status(workspace.id).hint ?? 'No agent is attached');
  }
  const why = unavailable(workspace, store);
  if (why) throw new AppError('conflict', 'agent_unavailable', why);
  for (const named of sessions) {
    if (named) await resolveSession(store, workspace.id, named, bridge.isLive);
  }
}

/** Streams what `run` emits as Server-Sent Events, in order; a browser that left does not stop it. */
function streamEvents(c: Context<AppEnv>, run: (emit: (event: AgentEvent) => void) => Promise<void>): Response {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    let open = true;
    stream.onAbort(() => {
      open = false;
    });
    let writing = Promise.resolve();
    const emit = (event: AgentEvent) => {
      if (!open) return;
      writing = writing
        .then(() => stream.writeSSE({ data: JSON.stringify(event), event: 'message' }))
        .catch(() => {
          open = false;
        });
    };
    await run(emit);
    await writing;
  });
}
