/**
 * Claude Code's tools, by the names it sends the model, each with the rule that attributes its
 * calls (core/tool-rules.ts). A tool not listed (an MCP server's `mcp__server__tool`, a deferred
 * one loaded later) is read by the shape of its input.
 */
import {
  contextReportTool,
  fetchTool,
  pathTool,
  readTool,
  ruleByShape,
  shellTool,
  subagentTool,
  type ToolCall,
  type ToolRule,
} from '../tool-rules';

/** `Read` takes `offset` and `limit` in lines, as OpenCode's read does. */
export const TOOL_RULES: Readonly<Record<string, ToolRule>> = {
  Read: readTool,
  Bash: shellTool,
  Grep: pathTool,
  Glob: pathTool,
  Edit: pathTool,
  MultiEdit: pathTool,
  Write: pathTool,
  NotebookEdit: (call, scope) => pathTool({ ...call, input: { path: call.input.notebook_path, ...call.input } }, scope),
  WebFetch: fetchTool,
  WebSearch: (call) => ({ source: 'unknown_tool_payload', label: `Web search: ${String(call.input.query ?? '')}` }),
  Task: subagentTool,
  Agent: subagentTool,
  Skill: (call) => {
    const skill = typeof call.input.skill === 'string' ? call.input.skill : 'unnamed';
    return { source: 'skills_knowledge', label: `Loaded skill: ${skill}`, skill };
  },
  TodoWrite: pathTool,
  // investibook's MCP server `investibook`, tool `context_report`, as Claude Code names it.
  mcp__investibook__context_report: contextReportTool,
};

export function toolRule(call: ToolCall): ToolRule {
  return (Object.hasOwn(TOOL_RULES, call.name) ? TOOL_RULES[call.name] : undefined) ?? ruleByShape(call);
}
