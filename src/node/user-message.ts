/**
 * A user message in OpenCode's shapes, written by investibook itself: what the chat saves when
 * no agent is attached, and what the agent bridge saves when the agent never received the
 * prompt (so nothing the user typed is lost).
 */
import { part } from '../shared/opencode/build';
import { RUNTIME_NAME } from '../shared/opencode/runtime';
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

/**
 * The prompt of an agent turn, kept by the server before the agent gets it, so nothing typed is
 * lost; the agent's own copy replaces it once the turn is saved (`isKeptPrompt` tells them apart).
 */
export function keptPrompt(workspaceId: string, sessionId: string, text: string, now = Date.now()): NewMessage {
  const message = userMessage(workspaceId, sessionId, text, now);
  // In OpenCode's shape, for OpenCode's session: its agent's copy replaces it.
  return { ...message, info: { ...(message.info as object), investibook: { kept: 'prompt' } }, runtime: RUNTIME_NAME };
}

export function isKeptPrompt(info: unknown): boolean {
  const mark = (info as { investibook?: { kept?: unknown } } | null)?.investibook;
  return mark?.kept === 'prompt';
}

/** The user's own words in a user message: its first text that is not synthetic. */
export function promptText(parts: unknown): string | null {
  if (!Array.isArray(parts)) return null;
  for (const part of parts as { type?: unknown; text?: unknown; synthetic?: unknown }[]) {
    if (part?.type === 'text' && typeof part.text === 'string' && part.synthetic !== true) return part.text;
  }
  return null;
}
