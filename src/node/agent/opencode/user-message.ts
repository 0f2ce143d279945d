/**
 * A user message in OpenCode's shapes, as investibook writes it itself (user-message.ts: the
 * chat's without an agent, a turn's kept prompt): the shapes of a prompt OpenCode records.
 */
import { part } from '../../../shared/opencode/build';
import { RUNTIME_NAME } from '../../../shared/opencode/runtime';
import type { UserMessageShapes } from '../../user-message';

export const opencodeUserMessages: UserMessageShapes = {
  name: RUNTIME_NAME,
  userMessage: (text, { now, partId }) => ({
    info: { role: 'user', time: { created: now }, agent: 'build' },
    parts: [{ id: partId, ...part.text(text) }],
  }),
};
