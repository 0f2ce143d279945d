/**
 * The `mcp` command (contract §5):
 *
 *   investibook mcp [WORKSPACE_ID] [--db PATH | --database-url URL] [--session ID]
 *   investibook mcp [WORKSPACE_ID] --api URL [--token TOKEN] [--session ID]
 *
 * A stdio MCP server whose one tool, `context_report`, reads the report the way
 * `investibook debug context` does: the database read-only (the same defaults), or a running
 * server's read-only debug route. Each call makes a fresh report, so the agent sees its session
 * as it is now. The sandboxed live agent runs it with `--api` and a token that can only read
 * its own workspace's report (docs/agent.md); the compiled build it runs (src/node/mcp/main.ts)
 * has no database driver at all.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ReportSource } from '../cli/api-source';
import { chooseDatabase } from '../cli/database';
import type { Io } from '../cli/io';
import type { CliEnv } from '../env';
import { usageError } from '../errors';
import { contextReportServer, serveStdio } from './server';

export interface McpSources {
  /** The database, read-only; absent in the sandbox's build, which only asks a server. */
  local?: (database: string, cwd: string, dataDir?: string) => ReportSource;
  api: (url: string, token: string, cwd: string) => ReportSource;
}

interface McpOptions {
  db?: string;
  databaseUrl?: string;
  dataDir?: string;
  session?: string;
  api?: string;
  token?: string;
}

export function addMcpCommand(root: Command, io: Io, env: CliEnv, sources: McpSources): void {
  root
    .command('mcp')
    .description("a stdio MCP server with one read-only tool, context_report: what fills the agent's context")
    .argument('[workspace-id]', 'workspace (default: the one whose folder contains the current directory)')
    .option('--db <path>', 'SQLite database (default: $INVESTIBOOK_DB, else the nearest data/investibook.db)')
    .option('--database-url <url>', 'PostgreSQL database (default: $INVESTIBOOK_DATABASE_URL)')
    .option('--data-dir <path>', 'with --database-url: the folder relative workspace roots are under')
    .option('--session <id>', 'session (default: the most recently active; with --api, the server decides)')
    .option('--api <url>', 'ask a running server instead of reading the database')
    .option('--token <token>', 'bearer token for --api (default: $INVESTIBOOK_TOKEN)')
    .exitOverride()
    .action(async (workspaceId: string | undefined, options: McpOptions) => {
      const source = chooseSource(options, io, env, sources);
      const server = contextReportServer(({ items }) =>
        source.report({ workspaceId, sessionId: options.session, items }),
      );
      // stdout carries the protocol: people read stderr — which workspace, from which database or server.
      const where = await source.describe(workspaceId).catch((error: unknown) => describeFault(workspaceId, error));
      io.err(`investibook mcp: serving context_report on stdio for ${where}\n`);
      await serveStdio(server);
    });
}

/** The database could not be read yet: the tool will say why on each call; stderr says it now. */
function describeFault(workspaceId: string | undefined, error: unknown): string {
  const what = workspaceId ? `workspace ${workspaceId}` : 'the workspace of this folder';
  return `${what} (not readable now: ${error instanceof Error ? error.message : String(error)})`;
}

function chooseSource(options: McpOptions, io: Io, env: CliEnv, sources: McpSources): ReportSource {
  const token = options.token ?? env.INVESTIBOOK_TOKEN;
  if (options.api) {
    if (options.db || options.databaseUrl) throw usageError('--api asks a server: it takes no --db or --database-url');
    if (!token) throw usageError('--api needs --token TOKEN (or $INVESTIBOOK_TOKEN)');
    return sources.api(options.api, token, io.cwd);
  }
  if (options.token) throw usageError('--token only makes sense with --api');
  if (!sources.local) throw usageError('this build of investibook mcp only asks a server: use --api URL');
  const database = chooseDatabase(options, env, io.cwd);
  const dataDir = options.dataDir ?? env.INVESTIBOOK_DATA_DIR;
  return sources.local(database.location, io.cwd, dataDir ? resolve(io.cwd, dataDir) : undefined);
}
