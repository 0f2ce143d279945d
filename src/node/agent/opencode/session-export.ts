/**
 * OpenCode's own record of a session (`opencode export SESSION_ID`, or the same shapes from
 * its HTTP API) turned into `messages_v2` rows in the contract's shape: `info` without
 * id/sessionID, `parts` without sessionID/messageID, everything else exactly as OpenCode
 * wrote it. Pure.
 */
import { isObject } from '../../../shared/opencode/format';
import { RUNTIME_NAME } from '../../../shared/opencode/runtime';

export interface ExportedMessage {
  info: Record<string, unknown> & { id: string; sessionID?: string };
  parts: (Record<string, unknown> & { id?: string })[];
}

export interface SessionExport {
  info: Record<string, unknown> & { id: string; directory?: string; title?: string };
  messages: ExportedMessage[];
}

export interface MessageRowInput {
  id: string;
  sessionId: string;
  timeCreated: number;
  timeUpdated: number;
  info: Record<string, unknown>;
  parts: Record<string, unknown>[];
  /** Which runtime wrote the row (messages_v2.runtime): OpenCode. */
  runtime: typeof RUNTIME_NAME;
}

/** Checks the outer shape of an export; throws with a clear message when it is not one. */
export function parseSessionExport(text: string): SessionExport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the session export is not JSON');
  }
  return checkSessionExport(value);
}

export function checkSessionExport(value: unknown): SessionExport {
  if (
    !isObject(value) ||
    !isObject(value.info) ||
    typeof value.info.id !== 'string' ||
    !Array.isArray(value.messages)
  ) {
    throw new Error('the session export has no info.id or messages');
  }
  for (const message of value.messages) {
    if (
      !isObject(message) ||
      !isObject(message.info) ||
      typeof message.info.id !== 'string' ||
      !Array.isArray(message.parts)
    ) {
      throw new Error('a message of the session export has no info.id or parts');
    }
  }
  return value as unknown as SessionExport;
}

/** The newest time OpenCode recorded anywhere in a message: changes whenever the message does. */
export function latestTime(message: ExportedMessage): number {
  let latest = 0;
  const visit = (time: unknown) => {
    if (!isObject(time)) return;
    for (const value of Object.values(time)) if (typeof value === 'number' && value > latest) latest = value;
  };
  visit(message.info.time);
  for (const part of message.parts) {
    visit(part.time);
    if (isObject(part.state)) visit(part.state.time);
  }
  return latest;
}

export function messageRows(exported: SessionExport): MessageRowInput[] {
  const sessionId = exported.info.id;
  return exported.messages.map((message) => {
    const { id, sessionID: _session, ...info } = message.info;
    const created = isObject(info.time) && typeof info.time.created === 'number' ? info.time.created : 0;
    return {
      id,
      sessionId,
      timeCreated: created,
      timeUpdated: Math.max(created, latestTime(message)),
      info,
      parts: message.parts.map(({ sessionID: _s, messageID: _m, ...part }) => part),
      runtime: RUNTIME_NAME,
    };
  });
}
