/**
 * The `mcp` command's work (command.ts has its options), loaded only when it runs: the report
 * source its options choose, and the stdio MCP server with its one tool, context_report.
 */
import { resolve } from 'node:path';
import type { ReportSource } from '../program/api-source';
import { chooseDatabase } from '../program/database';
import type { Io } from '../program/io';
import type { CliEnv } from '../env';
import { usageError } from '../errors';
import { contextReportServer, serveStdio } from './server';

export interface McpSources {
  /** The database, read-only; absent in the sandbox's build, which only asks a server. */
  local?: (database: string, cwd: string, dataDir?: string) => ReportSource;
  api: (url: string, token: string, cwd: string) => ReportSource;
}

export interface McpOptions {
  db?: string;
  databaseUrl?: string;
  dataDir?: string;
  session?: string;
  api?: string;
  token?: string;
}

export async function runMcp(
  workspaceId: string | undefined,
  options: McpOptions,
  io: Io,
  env: CliEnv,
  sources: McpSources,
): Promise<void> {
  const source = chooseSource(options, io, env, sources);
  const server = contextReportServer(({ items }) => source.report({ workspaceId, sessionId: options.session, items }));
  // stdout carries the protocol: people read stderr — which workspace, from which database or server.
  const where = await source.describe(workspaceId).catch((error: unknown) => describeFault(workspaceId, error));
  io.err(`investibook mcp: serving context_report on stdio for ${where}\n`);
  await serveStdio(server);
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
