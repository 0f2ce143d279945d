/**
 * The MCP server's and its tool's names. OpenCode names an MCP tool `<server>_<tool>`, so the
 * agent calls `investibook_context_report` (the name the report's OpenCode adapter knows:
 * core/opencode/tools.ts).
 */
export const MCP_SERVER_NAME = 'investibook';
export const CONTEXT_REPORT_TOOL = 'context_report';
