/**
 * The investibook CLI (contract §5). Commands throw typed errors; `run` is the one place that
 * maps them to exit codes: 0 success, 2 usage, 3 workspace or session not found, 1 otherwise.
 */
import { Command, Option } from 'commander';
import { dirname, resolve } from 'node:path';
import { parseCall, parseEstimator, parseItems, parsePage } from '../../shared/report-params';
import { ESTIMATORS } from '../../shared/wire';
import { cliEnvSchema, readEnv, type CliEnv } from '../env';
import { failed, usageError } from '../errors';
import { ensureFolder, FolderError } from '../fs-safe';
import { copyStore, CopyTargetNotEmpty } from '../storage/copy';
import { isDatabaseUrl, openStore, redact } from '../storage/open';
import { SCHEMA_VERSION } from '../storage/schema';
import { addMcpCommand } from '../mcp/command';
import { chooseDatabase } from './database';
import { exitCodeFor } from './exit';
import { defaultIo, type Io } from './io';
import { renderItemContent, renderReport, renderTimeline } from './render-table';
import { addImportCommand } from './import-command';
import { apiSource, localSource, type ReportSource, type SourceRequest } from './report-source';

export type { Io };

interface ContextOptions {
  item?: string;
  page: string;
  snapshot?: string;
  db?: string;
  databaseUrl?: string;
  session?: string;
  json?: boolean;
  timeline?: boolean;
  items?: string;
  call?: string;
  estimator?: string;
  api?: string;
  token?: string;
  dataDir?: string;
  export?: string;
  root?: string;
}

function program(io: Io, env: CliEnv): Command {
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
    .action(async (options: { db?: string; databaseUrl?: string }) => {
      if (!options.db && !options.databaseUrl) throw usageError('db init needs --db PATH or --database-url URL');
      const { location } = chooseDatabase(options, {}, io.cwd);
      if (!isDatabaseUrl(location)) ensureFolder(dirname(location));
      const store = await openStore({ location });
      await store.close();
      io.out(
        `Database ready: ${isDatabaseUrl(location) ? redact(location) : location} (schema version ${SCHEMA_VERSION})\n`,
      );
    });

  db.command('copy')
    .description('copy every row into an empty database (e.g. SQLite to PostgreSQL), ids and JSON as stored')
    .requiredOption('--from <path|url>', 'the database to copy (read-only)')
    .requiredOption('--to <path|url>', 'the empty database to fill (created and migrated if needed)')
    .exitOverride()
    .action(async (options: { from: string; to: string }) => {
      const location = (value: string) => (isDatabaseUrl(value) ? value : resolve(io.cwd, value));
      const from = await openStore({ location: location(options.from), readOnly: true });
      try {
        const target = location(options.to);
        if (!isDatabaseUrl(target)) ensureFolder(dirname(target));
        const to = await openStore({ location: target });
        try {
          const { rows } = await copyStore(from, to);
          const counts = Object.entries(rows).map(([table, n]) => `${n} ${table}`);
          io.out(`Copied ${counts.join(', ')} from ${redact(from.location)} to ${redact(to.location)}\n`);
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    });

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
    .option('--export <file>', 'report straight from a file `opencode export SESSION_ID` printed, with no database')
    .option('--root <dir>', 'with --export: the workspace folder (default: the export’s own, when it is here)')
    .exitOverride()
    .action(async (workspaceId: string | undefined, options: ContextOptions) => {
      const items = parseItems(options.items);
      const request = {
        workspaceId,
        sessionId: options.session,
        items: options.json ? items : (items ?? 'all'),
        estimator: parseEstimator(options.estimator),
        call: parseCall(options.call),
      };
      if (options.export !== undefined) {
        if (workspaceId || options.db || options.databaseUrl || options.api)
          throw usageError('--export reads its own sessions: leave out WORKSPACE_ID, --db, --database-url and --api');
        const { withExportSource } = await import('../import/export-report');
        await withExportSource(options.export, { root: options.root }, io, (source, id) =>
          show(io, source, { ...request, workspaceId: id }, options, items, null),
        );
        return;
      }
      if (options.root !== undefined) throw usageError('--root only makes sense with --export');
      const token = options.token ?? env.INVESTIBOOK_TOKEN;
      if (options.api && !token) throw usageError('--api needs --token TOKEN (or $INVESTIBOOK_TOKEN)');
      if (!options.api && options.token) throw usageError('--token only makes sense with --api');
      const database = options.api ? null : chooseDatabase(options, env, io.cwd);
      const dataDir = options.dataDir ?? env.INVESTIBOOK_DATA_DIR;
      const source = options.api
        ? apiSource(options.api, token!, io.cwd)
        : localSource(database!.location, io.cwd, dataDir ? resolve(io.cwd, dataDir) : undefined);
      const from = database && database.how !== 'default' && database.how !== '--db' ? database : null;
      await show(io, source, request, options, items, from ? `${redact(from.location)} (${from.how})` : null);
    });

  addMcpCommand(root, io, env, { local: localSource, api: apiSource });
  addImportCommand(root, io, env);

  return root;
}

/** An item's text, or the report as JSON, a timeline or a table. */
async function show(
  io: Io,
  source: ReportSource,
  request: SourceRequest,
  options: ContextOptions,
  items: ReturnType<typeof parseItems>,
  database: string | null,
): Promise<void> {
  if (options.item !== undefined) {
    const content = await source.item({
      ...request,
      itemId: options.item,
      snapshotId: options.snapshot,
      page: parsePage(options.page),
    });
    io.out(options.json ? `${JSON.stringify(content, null, 2)}\n` : renderItemContent(content));
    return;
  }
  const report = await source.report(request);
  if (options.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else if (options.timeline) io.out(renderTimeline(report));
  else io.out(renderReport(report, { items: items ?? 5, database }));
}

export async function run(argv: string[], io: Io = defaultIo): Promise<number> {
  try {
    // The environment first (one schema, src/node/env.ts): a bad value is a usage error.
    await program(io, readEnv(io.env, cliEnvSchema)).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return exitCodeFor(
      error instanceof FolderError
        ? failed('folder', error.message)
        : error instanceof CopyTargetNotEmpty
          ? usageError(error.message)
          : error,
      io,
    );
  }
}
