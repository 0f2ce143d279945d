/**
 * The runtimes the live agent can run, by the name INVESTIBOOK_AGENT_RUNTIME gives (absent:
 * OpenCode): one of the two places besides a runtime's own folders that names them (the other
 * is report/runtimes.ts, the read side's). A new runtime is its folder and a line here.
 */
import type { RuntimeName } from '../../shared/runtimes';
import { claudeCodeWriteSide } from './claude-code/write-side';
import type { UserMessageShapes } from '../user-message';
import { opencodeWriteSide } from './opencode';
import { opencodeUserMessages } from './opencode/user-message';
import type { RuntimeWriteSide } from './runtime-seam';

const WRITE_SIDES: Readonly<Record<RuntimeName, RuntimeWriteSide>> = {
  opencode: opencodeWriteSide,
  'claude-code': claudeCodeWriteSide,
};

export function writeSideOf(name: RuntimeName | undefined): RuntimeWriteSide {
  return WRITE_SIDES[name ?? 'opencode'];
}

/**
 * The shapes of the messages investibook writes itself — the chat's when no agent is attached, a
 * turn's kept prompt — whatever runtime runs: OpenCode's (contract §1: a row that names no
 * runtime is OpenCode's; another runtime's read-back drops a kept prompt by its text).
 */
export const OWN_MESSAGES: UserMessageShapes = opencodeUserMessages;
