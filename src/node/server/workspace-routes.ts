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
import { AppError } from '../errors';
import { claimSession, resolveSession } from '../sessions';
import { columnText } from '../storage/column-text';
import { recordedTitle, TITLED_RUNTIMES } from '../session-title';
import { newSessionId, userMessage } from '../user-message';
import { OWN_MESSAGES } from '../agent/runtime-registry';
import type { MessageRow, ReadSnapshot, SessionOriginRow, Store, WorkspaceRow } from '../storage/store';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../shared/json-depth';
import { latestTotal } from '../report/latest-total';
import { totalOnWire } from '../usage';
import type { AppEnv } from './access';
import { requireJson } from './guards';
import { jsonBody } from './json-body';

export const MAX_BODY_BYTES = 256 * 1024;

/** Sessions named by title (and their context) in the workspace's list, most recent first. */
export const NAMED_SESSIONS = 50;
/** A session's title (its runtime's own, else its first user message), cut to this many characters. */
export const TITLE_CHARS = 60;
/** Messages read to find the first user text (its first few; only their ids are listed first). */
const TITLE_MESSAGES = 6;

/**
 * How the chat names a session: the text of its first user message (not the workspace context
 * the server adds), on one line, cut to TITLE_CHARS. Null when none of its first messages says anything.
 */
async function sessionTitle(
  read: Pick<ReadSnapshot, 'messageStamps' | 'messages' | 'messageRuntimes' | 'sessionRuntime'>,
  workspaceId: string,
  sessionId: string,
): Promise<string | null> {
  // The runtime's own name for it, where its store gives one (Claude Code's), comes first.
  const runtimes = await read.messageRuntimes(workspaceId, sessionId);
  if (runtimes.some((r) => (TITLED_RUNTIMES as readonly (string | null)[]).includes(r))) {
    const named = recordedTitle(await read.sessionRuntime(workspaceId, sessionId));
    if (named) return oneLine(named);
  }
  const ids = (await read.messageStamps(workspaceId, sessionId)).slice(0, TITLE_MESSAGES).map((m) => m.id);
  for (const row of await read.messages(ids)) {
    const message = toChatMessage(row);
    if (message.problem || message.info.role !== 'user') continue;
    for (const part of message.parts) {
      if (part.type !== 'text' || part.synthetic === true || part.ignored === true) continue;
      const text = typeof part.text === 'string' ? oneLine(part.text) : '';
      if (text) return text;
    }
  }
  return null;
}

/** A title on one line, cut to TITLE_CHARS. */
function oneLine(title: string): string {
  const text = title.replace(/\s+/g, ' ').trim();
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1).trimEnd()}…` : text;
}

/** The workspaces the signed-in user may see (the CLI finds its own from a folder with it). */
export function workspacesRoute(store: Store): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/', async (c) => {
    const rows = await store.workspacesForMember(c.get('userId'));
    const body: WorkspaceList = {
      workspaces: rows.map((w) => ({ id: w.id, name: w.name, root: store.resolveRoot(w.root_path) })),
    };
    return c.json(body);
  });
  return routes;
}

/** The workspace and its sessions, most recent first, read from one snapshot. */
async function describeWorkspace(store: Store, read: ReadSnapshot, workspace: WorkspaceRow): Promise<Workspace> {
  const sessions = await read.listSessions(workspace.id);
  // A subagent's session: the bridge records the session whose task call made it.
  const parents = new Map((await read.sessionParents(workspace.id)).map((p) => [p.session_id, p.parent_session_id]));
  const origins = new Map((await read.sessionOrigins(workspace.id)).map((o) => [o.session_id, o]));
  const summaries = await Promise.all(
    sessions.map(async (s, index) => {
      const origin = origins.get(s.session_id);
      const summary = {
        id: s.session_id,
        messageCount: s.message_count,
        lastActiveAt: s.last_active,
        ...(origin ? { origin: originOnWire(origin) } : {}),
      };
      // The switcher names the most recent sessions; older ones are listed by time alone.
      if (index >= NAMED_SESSIONS) return summary;
      const [title, usage] = await Promise.all([
        sessionTitle(read, workspace.id, s.session_id),
        latestTotal(read, workspace.id, s.session_id),
      ]);
      const parent = parents.get(s.session_id) ?? origin?.parent_session_id ?? null;
      return {
        ...summary,
        title,
        contextUsed: usage?.contextUsed ?? null,
        contextSize: usage?.contextSize ?? null,
        ...(parent ? { parentSessionId: parent } : {}),
      };
    }),
  );
  return {
    id: workspace.id,
    name: workspace.name,
    defaultSessionId: sessions[0]?.session_id ?? null,
    sessions: summaries,
    root: store.resolveRoot(workspace.root_path),
  };
}

/** Where an imported session came from, as the session list says it. */
function originOnWire(origin: SessionOriginRow) {
  return {
    kind: origin.kind,
    importedAt: Number(origin.imported_at),
    updatedAt: Number(origin.updated_at),
    title: origin.title,
    parentSessionId: origin.parent_session_id,
    ...(origin.source_file ? { file: origin.source_file } : {}),
  };
}

export function workspaceRoutes(
  store: Store,
  live: (workspaceId: string, sessionId: string) => boolean = () => false,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/', async (c) => {
    const workspace = c.get('workspace');
    const body: Workspace = await store.snapshot((read) => describeWorkspace(store, read, workspace));
    return c.json(body);
  });

  routes.get('/messages', async (c) => {
    const workspace = c.get('workspace');
    const sessionId = await resolveSession(store, workspace.id, c.req.query('session_id'), live);
    const body: MessagesResponse = {
      sessionId,
      messages: sessionId === null ? [] : (await store.listMessages(workspace.id, sessionId)).map(toChatMessage),
    };
    return c.json(body);
  });

  routes.post(
    '/messages',
    requireJson,
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError('too_large', 'payload_too_large', `Request body over ${MAX_BODY_BYTES} bytes`);
      },
    }),
    async (c) => {
      const workspace = c.get('workspace');
      const request = await jsonBody(c, appendMessageRequestSchema);
      if (request.sessionId) await claimSession(store, workspace.id, request.sessionId);
      const sessionId = request.sessionId ?? (await resolveSession(store, workspace.id, undefined)) ?? newSessionId();
      const row = userMessage(OWN_MESSAGES, workspace.id, sessionId, request.text);
      await store.insertMessage(row);
      const message: ChatMessage = {
        id: row.id,
        sessionId,
        timeCreated: row.timeCreated,
        timeUpdated: row.timeUpdated,
        info: row.info as Record<string, unknown>,
        parts: row.parts as Record<string, unknown>[],
      };
      return c.json({ message }, 201);
    },
  );

  routes.get('/usage', async (c) => {
    const workspace = c.get('workspace');
    const sessionId = await resolveSession(store, workspace.id, c.req.query('session_id'), live);
    const latest =
      sessionId === null ? null : await store.snapshot((read) => latestTotal(read, workspace.id, sessionId));
    const body: Usage = {
      sessionId,
      latest: latest && totalOnWire(latest),
    };
    return c.json(body);
  });

  return routes;
}

/** Parts larger than this are not sent to the browser (the report still counts them). */
export const MAX_PART_CHARS = 4 * 1024 * 1024;

/**
 * A stored row as the chat shows it. Other writers' rows may be hostile: JSON nested thousands
 * of levels deep (which JSON.stringify cannot answer), huge parts, timestamps that are text.
 * What cannot be shown is left out with a warning; the rest is shown.
 */
export function toChatMessage(row: MessageRow): ChatMessage {
  const warnings: string[] = [];
  const time = (value: unknown, column: string): number => {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    warnings.push(
      `${column} ${JSON.stringify(String(value)).slice(0, 40)} is not a time${Number.isFinite(number) ? '; read as a number' : '; shown as 0'}`,
    );
    return Number.isFinite(number) ? number : 0;
  };
  const base = {
    id: row.id,
    sessionId: row.session_id,
    timeCreated: time(row.time_created, 'time_created'),
    timeUpdated: time(row.time_updated, 'time_updated'),
  };
  const withWarnings = <T extends object>(message: T) => (warnings.length ? { ...message, warnings } : message);
  let info: unknown;
  let parts: unknown;
  let partsText: string;
  try {
    info = JSON.parse(columnText(row.info).text ?? 'null');
    partsText = columnText(row.parts).text ?? 'null';
    parts = JSON.parse(partsText);
  } catch {
    return withWarnings({
      ...base,
      info: {},
      parts: [],
      problem: 'This message is stored as invalid JSON and cannot be shown.',
    });
  }
  if (typeof info !== 'object' || info === null || Array.isArray(info) || !Array.isArray(parts)) {
    return withWarnings({
      ...base,
      info: {},
      parts: [],
      problem: 'This message has an unexpected shape and cannot be shown.',
    });
  }
  if (nestsDeeperThan(info)) {
    return withWarnings({
      ...base,
      info: {},
      parts: [],
      problem: `This message's info nests deeper than ${MAX_JSON_DEPTH} levels and cannot be shown.`,
    });
  }
  const shown: Record<string, unknown>[] = [];
  // Only a row larger than the limit can hold a part larger than it: most rows are never measured.
  const mayBeLarge = partsText.length > MAX_PART_CHARS;
  parts.forEach((part: unknown, index) => {
    if (typeof part !== 'object' || part === null || Array.isArray(part)) return;
    if (nestsDeeperThan(part)) warnings.push(`part ${index} nests deeper than ${MAX_JSON_DEPTH} levels; not shown`);
    else if (mayBeLarge && JSON.stringify(part).length > MAX_PART_CHARS)
      warnings.push(`part ${index} is over ${MAX_PART_CHARS / 1024 / 1024} MB; not shown here (/debug counts it)`);
    else shown.push(part as Record<string, unknown>);
  });
  return withWarnings({ ...base, info: info as Record<string, unknown>, parts: shown });
}
