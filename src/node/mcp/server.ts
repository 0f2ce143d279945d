/**
 * `investibook mcp`: a stdio MCP server (the official SDK) with one read-only tool,
 * `context_report` — what fills the calling agent's context in its session: the verdict, the
 * sources, the largest items, repeated reads, suggestions and the session's cost, as compact
 * text and as structured content (summary.ts). It only ever reads a report from its source (the
 * database read-only, or a running server's read-only debug route); a report it cannot make is
 * told in words, as a tool error the agent reads, never as a crash.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/mini';
import type { ContextReport } from '../../shared/wire';
import { asAppError } from '../errors';
import { CONTEXT_REPORT_TOOL, MCP_SERVER_NAME } from './names';
import { contextSummary, contextSummarySchema, SUMMARY_ITEMS, summaryText } from './summary';

export { CONTEXT_REPORT_TOOL, MCP_SERVER_NAME };
export const MCP_VERSION = '0.1.0';

/** JSON-RPC 2.0's error codes for a line that is not JSON, and for JSON that is not a request. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Items per source asked of the report: enough for the largest items across every source. */
const REPORT_ITEMS = 20;
const MAX_ITEMS = 20;

export type FetchReport = (request: { items: number }) => Promise<ContextReport>;

const DESCRIPTION =
  'What fills your context window in this session, by source (Evidence, Skills & Knowledge, metadata, instructions, conversation, …): ' +
  'the verdict, tokens and share of each source, the largest items, files read more than once, suggestions and the session cost so far. ' +
  'Read-only. Use it before reading more large files, or to decide what to leave out.';

export function contextReportServer(fetchReport: FetchReport): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_VERSION }, { capabilities: { tools: {} } });
  server.registerTool(
    CONTEXT_REPORT_TOOL,
    {
      title: 'Context report',
      description: DESCRIPTION,
      inputSchema: {
        items: z.optional(
          z
            .int()
            .check(z.minimum(1), z.maximum(MAX_ITEMS), z.describe(`largest items to list (default ${SUMMARY_ITEMS})`)),
        ),
      },
      outputSchema: contextSummarySchema,
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false },
    },
    async ({ items }) => {
      let report: ContextReport;
      try {
        report = await fetchReport({ items: REPORT_ITEMS });
      } catch (error) {
        return {
          isError: true,
          content: [{ type: 'text' as const, text: `The context report is not available: ${describe(error)}` }],
        };
      }
      const summary = contextSummary(report, items ?? SUMMARY_ITEMS);
      return {
        content: [{ type: 'text' as const, text: summaryText(report, summary) }],
        structuredContent: summary,
      };
    },
  );
  return server;
}

/** A fault in one sentence: the application's own words where it has them. */
function describe(error: unknown): string {
  const known = asAppError(error);
  if (known) return known.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Serves on this process's stdin and stdout until the client closes stdin (the agent went away).
 * Nothing else may write to stdout meanwhile: it carries the protocol.
 */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  // A line that is not JSON-RPC is answered as JSON-RPC says (id null: no id could be read), and
  // the server goes on with the next line; the SDK would only report it to itself.
  transport.onerror = (error) => {
    const code = error instanceof SyntaxError ? PARSE_ERROR : error.name === 'ZodError' ? INVALID_REQUEST : null;
    if (code === null) return;
    const message =
      code === PARSE_ERROR ? 'Parse error: the line is not JSON' : 'Invalid Request: not a JSON-RPC 2.0 message';
    void transport.send({ jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage);
  };
  const closed = new Promise<void>((done) => {
    const end = () => done();
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    transport.onclose = end;
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
