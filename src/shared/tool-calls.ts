/**
 * A tool call as the chat shows it, live (from the agent's events) and saved (from OpenCode's
 * persisted part) alike: OpenCode's tool name ("bash", "grep", never ACP's kinds "execute",
 * "search"), one line of what it did, its outcome in words ("Refused by the server's policy: …"),
 * and its input, output and error for the expanded row — every path inside the workspace shown
 * relative to it. Browser-safe and pure.
 */

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
  /** OpenCode pruned the output: the model now sees a placeholder. */
  pruned: boolean;
}

/** Output shown in an expanded row (the rest is cut, saying how much). */
export const TOOL_TEXT_CHARS = 8000;

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
export function toolSummary(name: string, input: Record<string, unknown>, root: string | undefined): string {
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

/** A failure in words: a refusal by the policy or by the workspace's rules, else the error itself. */
function refusalOf(error: string | undefined): { outcomeText: string; refused: boolean } | null {
  if (!error) return null;
  if (error.startsWith(REJECTED)) return { outcomeText: 'Refused by the server’s policy', refused: true };
  if (error.startsWith(DENIED)) return { outcomeText: 'Refused by the workspace’s rules', refused: true };
  return null;
}

function cut(text: string | undefined, root: string | undefined): string | null {
  if (text === undefined || text === '') return null;
  const shown = relativePaths(text, root);
  return shown.length > TOOL_TEXT_CHARS
    ? `${shown.slice(0, TOOL_TEXT_CHARS)}\n… ${(shown.length - TOOL_TEXT_CHARS).toLocaleString('en-US')} more characters`
    : shown;
}

function inputText(input: Record<string, unknown>, root: string | undefined): string | null {
  const entries = Object.entries(input).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return null;
  // A shell command reads best as itself.
  if (entries.length <= 2 && typeof input.command === 'string') return relativePaths(input.command, root);
  return cut(JSON.stringify(Object.fromEntries(entries), null, 2), root);
}

interface CallFacts {
  name: string;
  input: Record<string, unknown>;
  status: 'pending' | 'running' | 'completed' | 'error';
  output?: string | undefined;
  error?: string | undefined;
  title?: string | undefined;
  pruned?: boolean;
  /** The turn ended with the call unfinished (a saved pending or running call). */
  ended?: boolean;
}

function view(facts: CallFacts, root: string | undefined): ToolCallView {
  const summary = toolSummary(facts.name, facts.input, root) || relativePaths(facts.title ?? '', root);
  const refusal = facts.status === 'error' ? refusalOf(facts.error) : null;
  let outcome: ToolOutcome;
  let outcomeText: string;
  if (refusal) {
    outcome = 'refused';
    outcomeText = refusal.outcomeText;
  } else if (facts.status === 'completed') {
    outcome = 'done';
    outcomeText = 'done';
  } else if (facts.status === 'error') {
    outcome = 'failed';
    outcomeText = 'failed';
  } else if (facts.ended) {
    outcome = 'interrupted';
    outcomeText = 'interrupted';
  } else {
    outcome = facts.status === 'pending' ? 'pending' : 'running';
    outcomeText = facts.status === 'pending' ? 'pending' : 'in progress';
  }
  return {
    name: facts.name,
    summary,
    outcome,
    outcomeText,
    reason: refusal ? `${refusal.outcomeText}: ${summary || facts.name}` : null,
    input: inputText(facts.input, root),
    output: cut(facts.output, root),
    error: cut(facts.error, root),
    pruned: facts.pruned ?? false,
  };
}

/** A saved call: OpenCode's tool part. */
export function savedToolCall(
  part: {
    tool: string;
    status: CallFacts['status'];
    input: Record<string, unknown>;
    output?: string | undefined;
    error?: string | undefined;
    title?: string | undefined;
    pruned?: boolean;
  },
  root: string | undefined,
): ToolCallView {
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
  return view({ name, input: call.input ?? {}, status, output: call.output, error: call.error, title }, root);
}
