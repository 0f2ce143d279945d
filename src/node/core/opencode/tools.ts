/**
 * OpenCode's tools (opencode-ai 1.18.33's built-ins), by name, each with the rule that attributes
 * its calls (core/tool-rules.ts). A tool not listed — an MCP server's (`server_tool`), a plugin's —
 * is read by the shape of its input. Contract §3's order holds around the rules: an explicit
 * `state.metadata.investibook.source` tag overrides any rule (attribute.ts applies it).
 *
 * Adding a tool is adding a line here (and a test in test/node/engine.test.ts).
 */
import {
  contextReportTool,
  conversationTool,
  fetchTool,
  patchTool,
  pathTool,
  readTool,
  ruleByShape,
  shellTool,
  skillTool,
  subagentTool,
  terminalTool,
  webSearchTool,
  type ToolCall,
  type ToolRule,
} from '../tool-rules';

/** OpenCode 1.18.33's built-in tools, by name, and investibook's own MCP tool. */
export const TOOL_RULES: Readonly<Record<string, ToolRule>> = {
  bash: shellTool,
  read: readTool,
  skill: skillTool,
  task: subagentTool,
  webfetch: fetchTool,
  websearch: webSearchTool,
  codesearch: webSearchTool,
  edit: pathTool,
  multiedit: pathTool,
  write: pathTool,
  patch: patchTool,
  apply_patch: patchTool,
  list: pathTool,
  glob: pathTool,
  grep: pathTool,
  lsp: pathTool,
  todowrite: conversationTool,
  todoread: conversationTool,
  question: conversationTool,
  // The pty plugin's terminals: started with a command, then read and written by id.
  pty_spawn: shellTool,
  pty_read: terminalTool,
  pty_write: terminalTool,
  pty_kill: terminalTool,
  // investibook's MCP server `investibook`, tool `context_report` (OpenCode names it server_tool).
  investibook_context_report: contextReportTool,
};

/** The rule for a call: its tool's, else one chosen by the shape of its input. */
export function toolRule(call: ToolCall): ToolRule {
  return (Object.hasOwn(TOOL_RULES, call.name) ? TOOL_RULES[call.name] : undefined) ?? ruleByShape(call);
}
