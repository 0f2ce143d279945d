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
 * has no database driver at all. Its work (run-mcp.ts) is loaded only when it runs.
 */
import type { Command } from 'commander';
import type { Io } from '../program/io';
import type { CliEnv } from '../env';
import type { McpOptions, McpSources } from './run-mcp';

export type { McpSources };

/** `env`: the environment, parsed once a command runs; `sources`: where reports come from, loaded then too. */
export function addMcpCommand(root: Command, io: Io, env: () => CliEnv, sources: () => Promise<McpSources>): void {
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
      const { runMcp } = await import('./run-mcp');
      await runMcp(workspaceId, options, io, env(), await sources());
    });
}
