/**
 * The agent runtimes this program can read, and which one wrote a session: its rows say
 * (messages_v2.runtime); a row that says nothing is OpenCode's, as every row was before the
 * column. A new runtime is an adapter in src/node/core/<runtime>/, a line in the core's entry
 * module (core/index.ts) and a line here.
 */
import { claudeCodeRuntime, opencodeRuntime, type AgentRuntime } from '../core';
import { AppError } from '../errors';

export const RUNTIMES: readonly AgentRuntime[] = [opencodeRuntime, claudeCodeRuntime];

/** The runtime of rows that name none, and of a workspace before its session is read: OpenCode. */
export const DEFAULT_RUNTIME: AgentRuntime = opencodeRuntime;

/** The runtime that wrote a session, from what its rows say (none: OpenCode). */
export function runtimeOfRows(names: readonly (string | null)[], sessionId: string | null): AgentRuntime {
  const named = [...new Set(names.filter((n): n is string => n !== null))];
  if (named.length === 0) return opencodeRuntime;
  const found = named.map((name) => RUNTIMES.find((r) => r.rows === name));
  if (named.length === 1 && found[0]) return found[0];
  const unknown = named.filter((_, i) => !found[i]);
  throw new AppError(
    'unsupported',
    'runtime_unsupported',
    unknown.length > 0
      ? `session ${sessionId}: its rows were written by ${unknown.join(', ')}, which this program cannot read (it reads ${RUNTIMES.map((r) => r.rows).join(', ')})`
      : `session ${sessionId}: its rows were written by more than one runtime (${named.join(', ')})`,
  );
}

/** The runtime whose name a row carries (null: none, OpenCode's); null for a name this program does not know. */
export function runtimeNamed(name: string | null | undefined): AgentRuntime | null {
  if (name === null || name === undefined) return DEFAULT_RUNTIME;
  return RUNTIMES.find((r) => r.rows === name) ?? null;
}
