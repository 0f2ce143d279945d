/**
 * The core's one entry module: everything the rest of src/node may use of the report core, and
 * nothing else (eslint.config.js holds every file outside src/node/core to this module;
 * test/node/boundaries.test.ts proves the rule bites). The core inside can then be rearranged —
 * a step split, a module merged — without touching a file outside it.
 *
 * What is here: the computation (contextReport, with the read plan that tells the caller which
 * rows to read in its one snapshot), the pages of an item's text, the errors the caller words
 * for users, the runtime adapters, and the plain types of the input, the services and the
 * estimators. Tests may import the core's modules one by one: they test its steps alone.
 */
export {
  contextReport,
  subagentInput,
  type Block,
  type ContextInput,
  type ContextResult,
  type ContextServices,
  type Memo,
  type SessionInput,
  type StoredRow,
  type ThreadCounter,
} from './context-report';
export { headerRowsToRead, rowsToRead, subagentsNamed } from './read-plan';
export type { SessionRows } from './session-rows';
export type { AnalysisEntry, StoredAnalyses } from './analysis';
export { pageText, previewText } from './content-pages';
export { CallUnavailable, PageOutOfRange } from './errors';
export { percentOfWindow, totalOnWire } from './figures';
export { chars4Estimator } from './estimate';
export { keyHash, pureKeyHash, useKeyHash } from './hash';
export { ASSUMED_IMAGE, familyRules, type Encoding, type ProviderFamily } from './providers';
export type { AgentRuntime, WorkspaceLayout } from './runtime';
export type { DeclaredSource, Estimator, RecordedRuntime, UsageInput, WorkspaceSnapshot } from './types';
// The runtime adapters, for the registry (report/runtimes.ts) and the composition roots.
export { opencodeRuntime } from './opencode';
export { claudeCodeRuntime, CLAUDE_CODE_ROWS } from './claude-code';
export { subagentSessionId } from './claude-code/entry';
export { REQUEST_SHAPE } from './claude-code/runtime-parts';
