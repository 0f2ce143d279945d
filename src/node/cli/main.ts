/**
 * The investibook CLI (contract §5). Commands throw typed errors; `run` is the one place that
 * maps them to exit codes: 0 success, 2 usage, 3 workspace or session not found, 1 otherwise.
 */
import { Command, CommanderError, Option } from 'commander';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AppError, usageError } from '../errors';
import { parseEstimatorOption, parseItemsOption } from '../report/context-report';
import { SCHEMA_VERSION } from '../storage/schema';
import { openWritable } from '../storage/store';
import { fetchReport, localReport } from './report-source';
import { renderReport } from './render-table';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
};

interface ContextOptions {
  db?: string;
  session?: string;
  json?: boolean;
  items?: string;
  estimator?: string;
  api?: string;
  token?: string;
}

function program(io: Io): Command {
  const root = new Command('investibook')
    .description('What is filling the model context of an investibook workspace?')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => {} })
    .showHelpAfterError(false);

  const db = root.command('db').description('database maintenance').exitOverride();
  db.command('init')
    .description('create or migrate a database (idempotent)')
    .requiredOption('--db <path>', 'database file')
    .exitOverride()
    .action((options: { db: string }) => {
      const path = resolve(io.cwd, options.db);
      mkdirSync(dirname(path), { recursive: true });
      openWritable(path).close();
      io.out(`Database ready: ${path} (schema version ${SCHEMA_VERSION})\n`);
    });

  const debug = root.command('debug').description('read-only diagnostics').exitOverride();
  debug
    .command('context')
    .description('attribute the context of a workspace session to its semantic sources')
    .argument('[workspace-id]', 'workspace (default: the one whose folder contains the current directory)')
    .option('--db <path>', 'database file (default: $INVESTIBOOK_DB, else ./data/investibook.db)')
    .option('--session <id>', 'session (default: the most recently active)')
    .option('--json', 'print the report as one JSON object')
    .option('--items <n|all>', 'items per source (JSON default 20, table default 5)')
    .addOption(new Option('--estimator <name>', 'token estimator').choices(['bpe', 'chars4']))
    .option('--api <url>', 'ask a running server instead of reading the database')
    .option('--token <token>', 'bearer token for --api (default: $INVESTIBOOK_TOKEN)')
    .exitOverride()
    .action(async (workspaceId: string | undefined, options: ContextOptions) => {
      const items = parseItemsOption(options.items);
      const request = {
        workspaceId,
        sessionId: options.session,
        items: options.json ? items : (items ?? 'all'),
        estimator: parseEstimatorOption(options.estimator),
      };
      let report;
      if (options.api) {
        const token = options.token ?? io.env.INVESTIBOOK_TOKEN;
        if (!token) throw usageError('--api needs --token TOKEN (or $INVESTIBOOK_TOKEN)');
        report = await fetchReport(options.api, token, request);
      } else {
        if (options.token) throw usageError('--token only makes sense with --api');
        const dbPath = resolve(io.cwd, options.db ?? (io.env.INVESTIBOOK_DB || './data/investibook.db'));
        report = localReport(dbPath, io.cwd, request);
      }
      io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report, { items: items ?? 5 }));
    });

  return root;
}

export async function run(argv: string[], io: Io = defaultIo): Promise<number> {
  try {
    await program(io).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      io.err(`investibook: ${error.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      io.err(`investibook: ${error.message}\n`);
      return error.kind === 'usage' ? 2 : error.kind === 'not_found' ? 3 : 1;
    }
    io.err(`investibook: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
