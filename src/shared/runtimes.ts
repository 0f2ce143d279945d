/**
 * The agent runtimes there are, by the name their rows carry (messages_v2.runtime), the report
 * and the chat name them, and INVESTIBOOK_AGENT_RUNTIME chooses one (contract §10). Browser-safe:
 * the chat shows the title.
 */
export const RUNTIME_NAMES = ['opencode', 'claude-code'] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];

export const RUNTIME_TITLES: Readonly<Record<RuntimeName, string>> = {
  opencode: 'OpenCode',
  'claude-code': 'Claude Code',
};

export const isRuntimeName = (value: unknown): value is RuntimeName =>
  typeof value === 'string' && (RUNTIME_NAMES as readonly string[]).includes(value);
