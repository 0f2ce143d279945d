/**
 * Claude Code's transcripts (`~/.claude/projects/<folder>/<session>.jsonl`, a subagent's in
 * `<session>/subagents/agent-<id>.jsonl`) read as rows, one transcript line a row
 * (docs/claude-code.md): `info` the entry without `message.content`, `parts` that content's
 * blocks (a string content is one text block), the row's id the line's position and its uuid
 * (rows are read in id order, and a transcript only grows at its end). Lines without a uuid are
 * Claude Code's bookkeeping and are not rows; of those, each `api-request-shape` (the system
 * blocks and tool definitions it sent) is kept as the session's runtime record.
 *
 * Whatever is not a transcript is refused in one sentence naming the file and the line.
 */
import { readFileSync } from 'node:fs';
import { CLAUDE_CODE_ROWS, REQUEST_SHAPE, subagentSessionId } from '../../core';
import type { NewMessage, NewSessionRuntime } from '../../storage/store';
import { ExportInputError } from '../../export-input-error';
import { titleRecord } from '../../session-title';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export interface TranscriptSession {
  source: { path: string; name: string };
  sessionId: string;
  /** The main session a subagent's transcript belongs to. */
  parentId: string | null;
  /** The folder Claude Code ran in (the entries' cwd). */
  directory: string | null;
  version: string | null;
  rows: (Omit<NewMessage, 'workspaceId' | 'info' | 'parts'> & { info: Json; parts: Json[] })[];
  /** The session's runtime records: every request shape, and the title Claude Code gives it (session-title.ts). */
  records: Omit<NewSessionRuntime, 'workspaceId'>[];
  /** The session's name as Claude Code's own session list gives it (claudeCodeTitle); null: none. */
  title: string | null;
}

/** Whether a file's text is a Claude Code transcript: its first line an entry with a type and a session id. */
export function looksLikeTranscript(head: string): boolean {
  const first = head
    .replace(/^\uFEFF/, '')
    .split('\n', 1)[0]!
    .trim();
  try {
    const entry: unknown = JSON.parse(first);
    return isObject(entry) && typeof entry.type === 'string' && typeof entry.sessionId === 'string';
  } catch {
    return false;
  }
}

/** A row's id: the line's position (so ids sort in transcript order) and the entry's uuid. */
export const rowId = (line: number, uuid: string): string => `${String(line).padStart(7, '0')}-${uuid}`;

function parseLines(text: string, name: string): Json[] {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const entries: Json[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      const last = index === lines.length - 1;
      throw new ExportInputError(
        last
          ? `${name} ends in the middle of a line (truncated?)`
          : `${name} is not a Claude Code transcript: line ${index + 1} is not JSON`,
      );
    }
    if (!isObject(entry) || typeof entry.type !== 'string')
      throw new ExportInputError(
        `${name} is not a Claude Code transcript: line ${index + 1} is not an entry with a type`,
      );
    entries.push({ ...entry, __line: index });
  });
  return entries;
}

function rowOf(entry: Json, sessionId: string): TranscriptSession['rows'][number] {
  const { __line, ...info } = entry;
  const time = Date.parse(str(info.timestamp) ?? '') || 0;
  let parts: Json[] = [];
  if (isObject(info.message)) {
    const { content, ...message } = info.message;
    info.message = message;
    parts =
      typeof content === 'string'
        ? [{ type: 'text', text: content }]
        : Array.isArray(content)
          ? content.filter(isObject)
          : [];
  }
  return {
    id: rowId(__line as number, info.uuid as string),
    sessionId,
    timeCreated: time,
    timeUpdated: time,
    info,
    parts,
    runtime: CLAUDE_CODE_ROWS,
  };
}

/** One transcript file as a session's rows and runtime records; throws ExportInputError for anything else. */
export function readTranscript(source: { path: string; name: string }): TranscriptSession {
  const { name } = source;
  const text = readFileSync(source.path, 'utf8');
  if (text.trim() === '') throw new ExportInputError(`${name} is empty: no transcript in it`);
  if (!looksLikeTranscript(text))
    throw new ExportInputError(
      `${name} is not a Claude Code transcript: its first line is not an entry with a sessionId`,
    );
  const entries = parseLines(text, name);
  const main = str(entries.find((e) => str(e.sessionId))?.sessionId);
  const agent = str(entries.find((e) => e.isSidechain === true && str(e.agentId))?.agentId);
  const sessionId = agent ? subagentSessionId(main!, agent) : main!;
  const conversation = entries.filter((e) => str(e.uuid));
  if (conversation.length === 0) throw new ExportInputError(`${name} holds no conversation entries (none has a uuid)`);
  const title = claudeCodeTitle(entries);
  const other = conversation.find((e) => str(e.sessionId) && e.sessionId !== main);
  if (other)
    throw new ExportInputError(
      `${name} is not one Claude Code session: line ${(other.__line as number) + 1} belongs to session ${String(other.sessionId)}, not to ${main}`,
    );
  return {
    source,
    sessionId,
    parentId: agent ? main : null,
    directory: str(conversation.find((e) => str(e.cwd))?.cwd),
    version: str(conversation.find((e) => str(e.version))?.version),
    rows: conversation.map((e) => rowOf(e, sessionId)),
    records: [
      ...entries
        .filter((e) => e.type === 'api-request-shape' && isObject(e.shape))
        .map((e) => ({
          sessionId,
          runtimeKey: `claude-code:${str(e.shapeHash) ?? String(e.__line)}`,
          parentSessionId: agent ? main : null,
          recordedAt: Date.parse(str(e.timestamp) ?? '') || 0,
          definitions: { kind: REQUEST_SHAPE, version: str(e.version), shape: e.shape },
        })),
      ...(title && !agent
        ? [{ sessionId, parentSessionId: null, recordedAt: latestTime(conversation), ...titleRecord(title) }]
        : []),
    ],
    title: agent ? null : title,
  };
}

const latestTime = (entries: readonly Json[]): number =>
  Math.max(0, ...entries.map((e) => Date.parse(str(e.timestamp) ?? '') || 0));

/** The last non-empty string of `field` on the entries of `type` (Claude Code's "last wins"). */
const lastOf = (entries: readonly Json[], type: string, field: string): string | null =>
  entries
    .filter((e) => e.type === type)
    .map((e) => str(e[field]))
    .reduce<string | null>((found, value) => value ?? found, null);

/** A local command's own lines (`<command-name>`, `<local-command-stdout>`, …): never a prompt. */
const COMMAND_TAG = /^<(command-name|command-message|command-args|local-command-[a-z]+)>/;

/**
 * The session's first prompt as Claude Code's session list reads it: the first user entry that
 * is neither its own note (`isMeta`), a compaction's summary nor a tool's result, its first text
 * on one line that is not a local command's, cut at 200 characters.
 */
function firstPrompt(entries: readonly Json[]): string | null {
  for (const entry of entries) {
    if (entry.type !== 'user' || entry.isMeta === true || entry.isCompactSummary === true) continue;
    const content = isObject(entry.message) ? entry.message.content : undefined;
    const blocks =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    if (blocks.some((b) => isObject(b) && b.type === 'tool_result')) continue;
    for (const block of blocks) {
      const text = isObject(block) && block.type === 'text' ? (str(block.text)?.replace(/\s+/g, ' ').trim() ?? '') : '';
      if (text && !COMMAND_TAG.test(text)) return text.length > 200 ? `${text.slice(0, 200).trim()}…` : text;
    }
  }
  return null;
}

/**
 * A session's title as Claude Code's own session list (the Agent SDK's `listSessions`
 * `summary`, its `/resume` picker) names it: the latest title the user gave (`custom-title`,
 * /rename), else the latest generated one (`ai-title`), else the latest prompt it noted
 * (`last-prompt`), else the latest `summary` line, else the first prompt. Nothing invented:
 * every one is a line Claude Code wrote.
 */
export function claudeCodeTitle(entries: readonly Json[]): string | null {
  return (
    lastOf(entries, 'custom-title', 'customTitle') ??
    lastOf(entries, 'ai-title', 'aiTitle') ??
    lastOf(entries, 'last-prompt', 'lastPrompt') ??
    lastOf(entries, 'summary', 'summary') ??
    firstPrompt(entries)
  );
}
