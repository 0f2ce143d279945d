/** /api/workspace/{id}, …/messages and …/usage. Access is checked before any of these run. */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  appendMessageRequestSchema,
  type ChatMessage,
  type MessagesResponse,
  type Usage,
  type Workspace,
} from '../../shared/wire';
import { createAscendingIds } from '../ids';
import { defaultSession } from '../report/context-report';
import { insertMessage, listMessages, listSessions, sessionExists, type Db, type MessageRow } from '../storage/store';
import { latestAcpUsage, percentOfWindow } from '../usage';
import { errorBody, type AppEnv } from './access';

export const MAX_BODY_BYTES = 256 * 1024;

const nextId = createAscendingIds();

export function workspaceRoutes(db: Db): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/', (c) => {
    const workspace = c.get('workspace');
    const sessions = listSessions(db, workspace.id);
    const body: Workspace = {
      id: workspace.id,
      name: workspace.name,
      defaultSessionId: sessions[0]?.session_id ?? null,
      sessions: sessions.map((s) => ({ id: s.session_id, messageCount: s.message_count, lastActiveAt: s.last_active })),
    };
    return c.json(body);
  });

  routes.get('/messages', (c) => {
    const workspace = c.get('workspace');
    const sessionId = sessionParam(db, workspace.id, c.req.query('session_id'));
    if (sessionId === false) return c.json(errorBody('session_not_found', 'Session not found'), 404);
    const body: MessagesResponse = {
      sessionId,
      messages: sessionId === null ? [] : listMessages(db, workspace.id, sessionId).map(toChatMessage),
    };
    return c.json(body);
  });

  routes.post(
    '/messages',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(errorBody('payload_too_large', `Request body over ${MAX_BODY_BYTES} bytes`), 413),
    }),
    async (c) => {
      const workspace = c.get('workspace');
      let json: unknown;
      try {
        json = await c.req.json();
      } catch {
        return c.json(errorBody('invalid_json', 'Request body is not valid JSON'), 400);
      }
      const parsed = appendMessageRequestSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return c.json(
          errorBody('invalid_body', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`),
          400,
        );
      }
      const sessionId = parsed.data.sessionId ?? defaultSession(db, workspace.id) ?? nextId('ses', Date.now());
      const now = Date.now();
      const id = nextId('msg', now);
      const info = { role: 'user', time: { created: now }, agent: 'build' };
      const parts = [{ id: nextId('prt', now), type: 'text', text: parsed.data.text }];
      insertMessage(db, { id, workspaceId: workspace.id, sessionId, timeCreated: now, timeUpdated: now, info, parts });
      const message: ChatMessage = { id, sessionId, timeCreated: now, timeUpdated: now, info, parts };
      return c.json({ message }, 201);
    },
  );

  routes.get('/usage', (c) => {
    const workspace = c.get('workspace');
    const sessionId = sessionParam(db, workspace.id, c.req.query('session_id'));
    if (sessionId === false) return c.json(errorBody('session_not_found', 'Session not found'), 404);
    const latest = sessionId === null ? null : latestAcpUsage(db, workspace.id, sessionId);
    const body: Usage = {
      sessionId,
      latest: latest && {
        contextUsed: latest.contextUsed,
        contextSize: latest.contextSize,
        percent: percentOfWindow(latest),
        recordedAt: new Date(latest.recordedAt).toISOString(),
      },
    };
    return c.json(body);
  });

  return routes;
}

/** The requested session (false when it does not exist), else the default one (null: none). */
function sessionParam(db: Db, workspaceId: string, requested: string | undefined): string | null | false {
  if (requested === undefined || requested === '') return defaultSession(db, workspaceId);
  return sessionExists(db, workspaceId, requested) ? requested : false;
}

function toChatMessage(row: MessageRow): ChatMessage {
  const base = { id: row.id, sessionId: row.session_id, timeCreated: row.time_created, timeUpdated: row.time_updated };
  let info: unknown;
  let parts: unknown;
  try {
    info = JSON.parse(row.info);
    parts = JSON.parse(row.parts);
  } catch {
    return { ...base, info: {}, parts: [], problem: 'This message is stored as invalid JSON and cannot be shown.' };
  }
  if (typeof info !== 'object' || info === null || Array.isArray(info) || !Array.isArray(parts)) {
    return { ...base, info: {}, parts: [], problem: 'This message has an unexpected shape and cannot be shown.' };
  }
  const objects = parts.filter(
    (p): p is Record<string, unknown> => typeof p === 'object' && p !== null && !Array.isArray(p),
  );
  return { ...base, info: info as Record<string, unknown>, parts: objects };
}
