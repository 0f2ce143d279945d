/**
 * `investibook mcp`: a stdio MCP server (the official SDK) with one read-only tool,
 * `context_report` — what fills the calling agent's context in its session: the verdict, the
 * sources, the largest items, repeated reads, suggestions and the session's cost, as compact
 * text and as structured content (summary.ts). It only ever reads a report from its source (the
 * database read-only, or a running server's read-only debug route); a report it cannot make is
 * told in words, as a tool error the agent reads, never as a crash.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import type { ContextReport } from '../../shared/wire';
import { asAppError } from '../errors';
import { BoundedLines, MAX_LINE_BYTES } from './bounded-lines';
import { CONTEXT_REPORT_TOOL, MCP_SERVER_NAME } from '../mcp-names';
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

/**
 * What `context_report` takes, and nothing else: an argument it does not know is refused, never
 * dropped (a caller asking for call 8 must not be answered with the current report).
 */
const inputSchema = z.strictObject({
  items: z.optional(
    z.int().check(z.minimum(1), z.maximum(MAX_ITEMS), z.describe(`largest items to list (default ${SUMMARY_ITEMS})`)),
  ),
});
const TAKES = `context_report takes one optional argument, items (an integer from 1 to ${MAX_ITEMS}, the largest items to list; default ${SUMMARY_ITEMS})`;

const TOOL = {
  name: CONTEXT_REPORT_TOOL,
  title: 'Context report',
  description: DESCRIPTION,
  // Draft 7, as the SDK writes a tool's schemas (its clients validate with it).
  inputSchema: z.toJSONSchema(inputSchema, { target: 'draft-7', io: 'input' }) as { type: 'object' },
  outputSchema: z.toJSONSchema(contextSummarySchema, { target: 'draft-7', io: 'output' }) as { type: 'object' },
  annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false },
};

/**
 * The MCP protocol's low-level server, its two tool requests answered here: the SDK's McpServer
 * answers bad arguments with a tool result (`isError`), which an agent reads as a report that
 * failed; bad arguments are the caller's mistake, a JSON-RPC invalid-params error (-32602) that
 * says what the tool takes.
 */
export function contextReportServer(fetchReport: FetchReport): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== CONTEXT_REPORT_TOOL)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no tool ${request.params.name}: this server has one, ${CONTEXT_REPORT_TOOL}`,
      );
    const items = parseArguments(request.params.arguments);
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
  });
  return server;
}

/** The call's arguments, or an invalid-params error naming what is wrong and what the tool takes. */
function parseArguments(args: Record<string, unknown> | undefined): number | undefined {
  const unknown = Object.keys(args ?? {}).filter((key) => key !== 'items');
  const parsed = unknown.length ? null : inputSchema.safeParse(args ?? {});
  if (parsed?.success) return parsed.data.items;
  const problem = unknown.length
    ? `it does not take ${unknown.map((k) => JSON.stringify(k)).join(', ')}`
    : `items must be an integer from 1 to ${MAX_ITEMS} (got ${JSON.stringify(args?.items)})`;
  throw new McpError(ErrorCode.InvalidParams, `Invalid arguments: ${problem}. ${TAKES}.`);
}

/**
 * A `tools/call` line whose arguments hold `__proto__`, answered before the SDK reads it: the
 * SDK's parsing drops that key without a word (so the call would get a report), where every
 * other key it does not take is refused (-32602). JSON.parse keeps it as an own key.
 */
function protoArguments(line: Buffer): { id: string | number; error: McpError } | null {
  if (!line.includes('__proto__')) return null;
  let message: unknown;
  try {
    message = JSON.parse(line.toString('utf8'));
  } catch {
    return null; // the SDK answers it as a parse error
  }
  if (typeof message !== 'object' || message === null) return null;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { arguments?: unknown } };
  const args = params?.arguments;
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, '__proto__')) return null;
  try {
    parseArguments(Object.fromEntries(Object.entries(args)));
  } catch (error) {
    if (error instanceof McpError) return { id, error };
  }
  return null;
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
export async function serveStdio(server: Server, maxLine = MAX_LINE_BYTES): Promise<void> {
  // A line over the bound never reaches the SDK (bounded-lines.ts): it is answered here as a
  // request JSON-RPC cannot take, and the next line is read as usual.
  const lines = new BoundedLines(
    maxLine,
    (bytes) =>
      reply(
        null,
        INVALID_REQUEST,
        `Invalid Request: the line is ${bytes} bytes, over this server's bound of ${maxLine} bytes per message`,
      ),
    (line) => {
      const refused = protoArguments(line);
      if (refused) reply(refused.id, refused.error.code, refused.error.message);
      return refused !== null;
    },
  );
  process.stdin.pipe(lines);
  const transport = new StdioServerTransport(lines as unknown as typeof process.stdin, process.stdout, {
    maxBufferSize: maxLine + 2,
  });
  function reply(id: string | number | null, code: number, message: string): void {
    void transport.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
  // A line that is not JSON-RPC is answered as JSON-RPC says (id null: no id could be read), and
  // the server goes on with the next line; the SDK would only report it to itself.
  transport.onerror = (error) => {
    if (error instanceof SyntaxError) reply(null, PARSE_ERROR, 'Parse error: the line is not JSON');
    else if (error.name === 'ZodError') reply(null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
  };
  const closed = new Promise<void>((done) => {
    const end = () => done();
    lines.once('end', end);
    lines.once('close', end);
    transport.onclose = end;
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
