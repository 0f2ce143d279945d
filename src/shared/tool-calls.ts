/**
 * A tool call as the chat shows it, live (from the agent's events) and saved (from the runtime-
 * neutral transcript, shared/transcript.ts) alike: the runtime's tool name ("bash", "Read", never
 * ACP's kinds "execute", "search"), one line of what it did, its outcome in words ("Refused by the
 * server's policy: …"), and its input, output and error for the expanded row — every path inside
 * the workspace shown relative to it. Browser-safe and pure; the server's mappers use its
 * summaries too.
 */
import { previewText, TRANSCRIPT_TEXT_CHARS, type SavedToolStatus, type TranscriptTool } from './transcript';

export type ToolOutcome = 'pending' | 'running' | 'done' | 'failed' | 'refused' | 'interrupted';

export interface ToolCallView {
  name: string;
  summary: string;
  outcome: ToolOutcome;
  /** The outcome in words: "done", "failed", "Refused by the server’s policy". */
  outcomeText: string;
  /** Why it was refused or failed, in words, for the row itself. */
  reason: string | null;
  input: string | null;
  output: string | null;
  error: string | null;
  /** The runtime pruned the output: the model now sees a placeholder. */
  pruned: boolean;
}

/** Output shown in an expanded row (the rest is cut, saying how much). */
export const TOOL_TEXT_CHARS = TRANSCRIPT_TEXT_CHARS;

/** OpenCode's words for a permission the answerer refused, and for a rule that denies the call. */
const REJECTED = 'The user rejected permission to use this specific tool call';
const DENIED = 'The user has specified a rule which prevents you from using this specific tool call';

/** Paths inside the workspace, relative to it (OpenCode also writes them relative to "/"). */
export function relativePaths(text: string, root: string | undefined): string {
  if (!root || root === '/') return text;
  const bare = root.replace(/\/+$/, '');
  return text
    .replaceAll(`${bare}/`, '')
    .replaceAll(`${bare.slice(1)}/`, '')
    .replace(new RegExp(`${escape(bare)}(?![\\w/.-])`, 'g'), '.');
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One line of what a call did, from OpenCode's input for its tool. */
export function toolSummary(name: string, input: Record<string, unknown>, root?: string): string {
  const path = str(input.filePath) ?? str(input.path);
  const rel = (text: string) => relativePaths(text, root);
  switch (name) {
    case 'bash':
      return rel(str(input.command) ?? str(input.description) ?? '');
    case 'grep':
    case 'glob': {
      const pattern = str(input.pattern);
      if (!pattern) return path ? rel(path) : '';
      return `${JSON.stringify(pattern)}${path ? ` in ${rel(path)}` : ''}`;
    }
    case 'read': {
      if (!path) return '';
      const offset = typeof input.offset === 'number' ? input.offset : undefined;
      const limit = typeof input.limit === 'number' ? input.limit : undefined;
      const range =
        offset !== undefined && limit !== undefined
          ? ` (lines ${offset}–${offset + limit - 1})`
          : offset
            ? ` (from line ${offset})`
            : '';
      return `${rel(path)}${range}`;
    }
    case 'skill':
      return str(input.name) ?? '';
    case 'webfetch':
      return str(input.url) ?? '';
    case 'task':
      return str(input.description) ?? str(input.prompt)?.slice(0, 80) ?? '';
    default: {
      if (path) return rel(path);
      const first = Object.values(input).find((v): v is string => typeof v === 'string' && v !== '');
      return first ? rel(first) : '';
    }
  }
}

/** OpenCode's refusals by their words: by the server's policy (the permission answered no), or by the workspace's rules. */
export function refusalIn(error: string | undefined): 'policy' | 'rules' | undefined {
  if (error?.startsWith(REJECTED)) return 'policy';
  if (error?.startsWith(DENIED)) return 'rules';
  return undefined;
}

const REFUSALS = { policy: 'Refused by the server’s policy', rules: 'Refused by the workspace’s rules' } as const;

/** A call's input as text, cut: a shell command as itself, else JSON; null when it has none. */
export function inputText(input: Record<string, unknown>): string | null {
  const entries = Object.entries(input).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return null;
  // A shell command reads best as itself.
  if (entries.length <= 2 && typeof input.command === 'string') return input.command;
  return previewText(JSON.stringify(Object.fromEntries(entries), null, 2));
}

/** What the server sent is cut already (previewText): only the paths are made relative here. */
function shown(text: string | null | undefined, root: string | undefined): string | null {
  if (text === undefined || text === null || text === '') return null;
  return relativePaths(text, root);
}

interface CallFacts {
  name: string;
  summary: string;
  input: string | null;
  status: SavedToolStatus;
  refused?: 'policy' | 'rules' | undefined;
  output?: string | undefined;
  error?: string | undefined;
  pruned?: boolean | undefined;
  /** The turn ended with the call unfinished (a saved pending or running call). */
  ended?: boolean;
}

function outcomeOf(facts: CallFacts): { outcome: ToolOutcome; outcomeText: string } {
  if (facts.status === 'error' && facts.refused) return { outcome: 'refused', outcomeText: REFUSALS[facts.refused] };
  if (facts.status === 'completed') return { outcome: 'done', outcomeText: 'done' };
  if (facts.status === 'error') return { outcome: 'failed', outcomeText: 'failed' };
  if (facts.ended) return { outcome: 'interrupted', outcomeText: 'interrupted' };
  return facts.status === 'pending'
    ? { outcome: 'pending', outcomeText: 'pending' }
    : { outcome: 'running', outcomeText: 'in progress' };
}

function view(facts: CallFacts, root: string | undefined): ToolCallView {
  const summary = relativePaths(facts.summary, root);
  const { outcome, outcomeText } = outcomeOf(facts);
  return {
    name: facts.name,
    summary,
    outcome,
    outcomeText,
    reason: outcome === 'refused' ? `${outcomeText}: ${summary || facts.name}` : null,
    input: shown(facts.input, root),
    output: shown(facts.output, root),
    error: shown(facts.error, root),
    pruned: facts.pruned ?? false,
  };
}

/** A saved call, as the runtime's mapper made it (shared/transcript.ts): the turn it was in has ended. */
export function savedToolCall(part: TranscriptTool, root: string | undefined): ToolCallView {
  return view({ ...part, name: part.tool, ended: true }, root);
}

/** ACP's kinds, for a live call whose tool name the agent did not say. */
const KIND_NAMES: Record<string, string> = { execute: 'bash', search: 'grep', read: 'read', fetch: 'webfetch' };

/** A live call: the latest state the agent streamed. */
export function liveToolCall(
  call: {
    tool?: string | undefined;
    kind?: string | undefined;
    title: string;
    status: 'pending' | 'in_progress' | 'completed' | 'failed';
    input?: Record<string, unknown> | undefined;
    output?: string | undefined;
    error?: string | undefined;
    paths?: string[] | undefined;
  },
  root: string | undefined,
): ToolCallView {
  const name = call.tool ?? (call.kind ? (KIND_NAMES[call.kind] ?? call.kind) : 'tool');
  // Before its input arrives, a call is known by its title (OpenCode's: the tool's name) and paths.
  const title = call.title === name && call.paths?.length ? call.paths.join(', ') : call.title;
  const status = call.status === 'in_progress' ? 'running' : call.status === 'failed' ? 'error' : call.status;
  const input = call.input ?? {};
  return view(
    {
      name,
      summary: toolSummary(name, input) || title,
      input: inputText(input),
      status,
      refused: status === 'error' ? refusalIn(call.error) : undefined,
      // A streamed output is bounded well above what the row shows, so that it can say how much more there is.
      output: call.output === undefined ? undefined : previewText(call.output),
      error: call.error === undefined ? undefined : previewText(call.error),
    },
    root,
  );
}
