/**
 * A user message in OpenCode's shapes, written by investibook itself: what the chat saves when
 * no agent is attached, and what the agent bridge saves when the agent never received the
 * prompt (so nothing the user typed is lost).
 */
import { part } from '../shared/opencode/build';
import { createAscendingIds } from './ids';
import type { NewMessage } from './storage/store';

const nextId = createAscendingIds();

export const newSessionId = (now = Date.now()): string => nextId('ses', now);

export function userMessage(workspaceId: string, sessionId: string, text: string, now = Date.now()): NewMessage {
  return {
    id: nextId('msg', now),
    workspaceId,
    sessionId,
    timeCreated: now,
    timeUpdated: now,
    info: { role: 'user', time: { created: now }, agent: 'build' },
    parts: [{ id: nextId('prt', now), ...part.text(text) }],
  };
}
