/**
 * A user message investibook writes itself: what the chat saves when no agent is attached, and
 * what the agent bridge saves when the agent never received the prompt (so nothing the user
 * typed is lost). Its shapes are a runtime's, given by the caller (the agent registry's
 * OWN_MESSAGES): this module knows ids, times and the kept-prompt mark, no runtime's format.
 */
import type { RuntimeName } from '../shared/runtimes';
import { createAscendingIds } from './ids';
import type { NewMessage } from './storage/store';

/** How a runtime writes a user's message in its own shapes (agent/<runtime>: its write side's). */
export interface UserMessageShapes {
  readonly name: RuntimeName;
  /** The message's info and parts; `partId` names its one text part. */
  userMessage(text: string, at: { now: number; partId: string }): Pick<NewMessage, 'info' | 'parts'>;
}

const nextId = createAscendingIds();

export const newSessionId = (now = Date.now()): string => nextId('ses', now);

export function userMessage(
  shapes: UserMessageShapes,
  workspaceId: string,
  sessionId: string,
  text: string,
  now = Date.now(),
): NewMessage {
  const id = nextId('msg', now);
  return {
    id,
    workspaceId,
    sessionId,
    timeCreated: now,
    timeUpdated: now,
    ...shapes.userMessage(text, { now, partId: nextId('prt', now) }),
  };
}

/**
 * The prompt of an agent turn, kept by the server before the agent gets it, so nothing typed is
 * lost; the agent's own copy replaces it once the turn is saved (`isKeptPrompt` tells them apart).
 */
export function keptPrompt(
  shapes: UserMessageShapes,
  workspaceId: string,
  sessionId: string,
  text: string,
  now = Date.now(),
): NewMessage {
  const message = userMessage(shapes, workspaceId, sessionId, text, now);
  // Tagged with the runtime whose shapes it is in: that runtime's copy replaces it.
  return { ...message, info: { ...(message.info as object), investibook: { kept: 'prompt' } }, runtime: shapes.name };
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
