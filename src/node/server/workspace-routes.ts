/**
 * /api/workspaces, /api/workspace/{id}, …/messages and …/usage. Access is checked before any of
 * these run; every failure is thrown as a typed error and answered by the app's one handler.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  appendMessageRequestSchema,
  type ChatMessage,
  type MessagesResponse,
  type Usage,
  type Workspace,
  type WorkspaceList,
} from '../../shared/wire';
import { AppError, methodNotAllowed } from '../errors';
import { createAscendingIds } from '../ids';
import { resolveSession } from '../sessions';
import type { MessageRow, Store } from '../storage/store';
import { latestAcpUsage, percentOfWindow } from '../usage';
import type { AppEnv } from './access';

export const MAX_BODY_BYTES = 256 * 1024;

const nextId = createAscendingIds();

/** The workspaces the signed-in user may see (the CLI finds its own from a folder with it). */
export function workspacesRoute(store: Store): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/', async (c) => {
    const rows = await store.workspacesForMember(c.get('userId'));
    const body: WorkspaceList = {
      workspaces: rows.map((w) => ({ id: w.id, name: w.name, root: store.resolveRoot(w.root_path) })),
    };
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  });
  routes.all('/', () => {
    throw methodNotAllowed('GET');
  });
  return routes;
}

export function workspaceRoutes(store: Store): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const noStore = { 'Cache-Control': 'no-store' };

  routes.get('/', async (c) => {
    const workspace = c.get('workspace');
    const sessions = await store.listSessions(workspace.id);
    const body: Workspace = {
      id: workspace.id,
      name: workspace.name,
      defaultSessionId: sessions[0]?.session_id ?? null,
      sessions: sessions.map((s) => ({ id: s.session_id, messageCount: s.message_count, lastActiveAt: s.last_active })),
    };
    return c.json(body, 200, noStore);
  });

  routes.get('/messages', async (c) => {
    const workspace = c.get('workspace');
    const sessionId = await resolveSession(store, workspace.id, c.req.query('session_id'));
    const body: MessagesResponse = {
      sessionId,
      messages: sessionId === null ? [] : (await store.listMessages(workspace.id, sessionId)).map(toChatMessage),
    };
    return c.json(body, 200, noStore);
  });

  routes.post(
    '/messages',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError('too_large', 'payload_too_large', `Request body over ${MAX_BODY_BYTES} bytes`);
      },
    }),
    async (c) => {
      const workspace = c.get('workspace');
      let json: unknown;
      try {
        json = await c.req.json();
      } catch {
        throw new AppError('invalid', 'invalid_json', 'Request body is not valid JSON');
      }
      const parsed = appendMessageRequestSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError(
          'invalid',
          'invalid_body',
          `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      const now = Date.now();
      const sessionId =
        parsed.data.sessionId ?? (await resolveSession(store, workspace.id, undefined)) ?? nextId('ses', now);
      const id = nextId('msg', now);
      const info = { role: 'user', time: { created: now }, agent: 'build' };
      const parts = [{ id: nextId('prt', now), type: 'text', text: parsed.data.text }];
      await store.insertMessage({
        id,
        workspaceId: workspace.id,
        sessionId,
        timeCreated: now,
        timeUpdated: now,
        info,
        parts,
      });
      const message: ChatMessage = { id, sessionId, timeCreated: now, timeUpdated: now, info, parts };
      return c.json({ message }, 201);
    },
  );

  routes.get('/usage', async (c) => {
    const workspace = c.get('workspace');
    const sessionId = await resolveSession(store, workspace.id, c.req.query('session_id'));
    const latest = sessionId === null ? null : await latestAcpUsage(store, workspace.id, sessionId);
    const body: Usage = {
      sessionId,
      latest: latest && {
        contextUsed: latest.contextUsed,
        contextSize: latest.contextSize,
        percent: percentOfWindow(latest),
        recordedAt: new Date(latest.recordedAt).toISOString(),
      },
    };
    return c.json(body, 200, noStore);
  });

  for (const [path, allow] of [
    ['/', 'GET'],
    ['/usage', 'GET'],
    ['/messages', 'GET, POST'],
  ] as const) {
    routes.all(path, () => {
      throw methodNotAllowed(allow);
    });
  }
  return routes;
}

function toChatMessage(row: MessageRow): ChatMessage {
  const base = { id: row.id, sessionId: row.session_id, timeCreated: row.time_created, timeUpdated: row.time_updated };
  let info: unknown;
  let parts: unknown;
  try {
    info = JSON.parse(String(row.info));
    parts = JSON.parse(String(row.parts));
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
