/**
 * The investibook CLI (contract §5): the commands and their options, and nothing else. Each
 * command's work is loaded only when it runs (db-commands.ts, context-command.ts,
 * import-command.ts, mcp/command.ts), so `investibook --help` evaluates little more than
 * commander (the build splits the bundle at these imports: scripts/build-node.mjs). Commands
 * throw typed errors; `run` is the one place that maps them to exit codes: 0 success, 2 usage,
 * 3 workspace or session not found, 1 otherwise.
 */
import { Command, CommanderError, Option } from 'commander';
import { ESTIMATORS } from '../../shared/estimators';
import type { CliEnv } from '../env';
import { guardProcess } from './process-guard';
import { defaultIo, type Io } from '../program/io';
import { screenIo } from '../program/terminal-text';
import { addImportCommand } from './import-command';
import { addMcpCommand } from '../mcp/command';
import { addServeCommand } from './serve-command';
import type { ContextOptions } from './context-command';
import type { DatabaseOptions } from './db-commands';

export type { Io };

function program(io: Io, env: () => CliEnv): Command {
  const root = new Command('investibook')
    .description('What is filling the model context of an investibook workspace?')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => {} })
    .showHelpAfterError(false);

  const db = root.command('db').description('database maintenance').exitOverride();
  db.command('init')
    .description('create or migrate a database (idempotent)')
    .option('--db <path>', 'SQLite database file')
    .option('--database-url <url>', 'PostgreSQL database (postgres://…)')
    .exitOverride()
    .action(async (options: DatabaseOptions) => (await import('./db-commands')).runInit(options, io));

  db.command('copy')
    .description('copy every row into an empty database (e.g. SQLite to PostgreSQL), ids and JSON as stored')
    .requiredOption('--from <path|url>', 'the database to copy (read-only)')
    .requiredOption('--to <path|url>', 'the empty database to fill (created and migrated if needed)')
    .exitOverride()
    .action(async (options: { from: string; to: string }) => (await import('./db-commands')).runCopy(options, io));

  db.command('count')
    .description(
      'store the token counts of every session that lacks them (reports then count only what another writer added)',
    )
    .option('--db <path>', 'SQLite database (default: $INVESTIBOOK_DB, else the nearest data/investibook.db)')
    .option('--database-url <url>', 'PostgreSQL database (default: $INVESTIBOOK_DATABASE_URL)')
    .option('--data-dir <path>', 'with --database-url: the folder relative workspace roots are under')
    .option('--workspace <id>', 'only this workspace’s sessions')
    .exitOverride()
    .action(async (options: DatabaseOptions & { workspace?: string; dataDir?: string }) =>
      (await import('./db-commands')).runCount(options, io, env()),
    );

  const debug = root.command('debug').description('read-only diagnostics').exitOverride();
  debug
    .command('context')
    .description('attribute the context of a workspace session to its semantic sources')
    .argument('[workspace-id]', 'workspace (default: the one whose folder contains the current directory)')
    .option('--db <path>', 'SQLite database (default: $INVESTIBOOK_DB, else the nearest data/investibook.db)')
    .option('--database-url <url>', 'PostgreSQL database (default: $INVESTIBOOK_DATABASE_URL)')
    .option('--session <id>', 'session (default: the most recently active)')
    .option('--json', 'print the report as one JSON object')
    .option('--timeline', 'print how the context grew, model call by model call')
    .option('--wide', 'print tables whole, however wide (default: fit the terminal, else $COLUMNS, else 100 columns)')
    .option('--items <n|all>', 'items per source (JSON default 20, table default 5)')
    .option('--call <n>', 'the context as of model call N (1 = the first; default: now)')
    .addOption(new Option('--estimator <name>', 'token estimator').choices(ESTIMATORS))
    .option('--item <id>', "print an item's text as the model sees it (ids are in --json output)")
    .option('--page <n>', 'with --item: zero-based page of 8,000 characters', '0')
    .option('--snapshot <id>', 'with --item: fail (context changed) unless the report snapshot is still current')
    .option(
      '--data-dir <path>',
      'with --database-url: the folder relative workspace roots are under (default: $INVESTIBOOK_DATA_DIR, else ./data)',
    )
    .option('--api <url>', 'ask a running server instead of reading the database')
    .option('--token <token>', 'bearer token for --api (default: $INVESTIBOOK_TOKEN)')
    .option(
      '--export <files...>',
      'report straight from files `opencode export SESSION_ID` printed, with no database (the latest session, or --session)',
    )
    .option('--root <dir>', 'with --export: the workspace folder (default: the export’s own, when it is here)')
    .option('--sources <file>', 'with --export: the sources a workspace would declare in .investibook/sources.json')
    .exitOverride()
    .action(async (workspaceId: string | undefined, options: ContextOptions) =>
      (await import('./context-command')).runContext(workspaceId, options, io, env()),
    );

  addMcpCommand(root, io, env, async () => {
    const [{ localSource }, { apiSource }] = await Promise.all([
      import('../program/report-source'),
      import('../program/api-source'),
    ]);
    return { local: localSource, api: apiSource };
  });
  addImportCommand(root, io, env);
  addServeCommand(root, io);

  return root;
}

export async function run(argv: string[], given: Io = defaultIo): Promise<number> {
  // Every write of every command shows controls as text: the one boundary (terminal-text.ts).
  const io = screenIo(given);
  if (given === defaultIo) guardProcess(io);
  let env: CliEnv | undefined;
  try {
    const root = program(io, () => env!);
    // The environment once a command runs (the CLI's part of the one schema, src/node/cli-env.ts):
    // a bad value is a usage error, and `--help` never loads the schema.
    root.hook('preAction', async () => {
      const { cliEnvSchema, parseEnv } = await import('../cli-env');
      env = parseEnv(io.env, cliEnvSchema);
    });
    await root.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 0; // --help, --version
    const { cliExitCode } = await import('../program/exit');
    return cliExitCode(error, io);
  }
}
