/**
 * The `debug context` command's work (contract §5, §8), loaded only when it runs: the report of
 * a workspace's session from the database (read-only), a running server (`--api`) or an export
 * file (`--export`), printed as a table, JSON, a timeline, or one item's text.
 */
import { resolve } from 'node:path';
import { parseCall, parseEstimator, parseItems, parsePage } from '../../shared/report-params';
import type { CliEnv } from '../env';
import { usageError } from '../errors';
import { redact } from '../storage/open';
import { chooseDatabase } from './database';
import type { Io } from './io';
import { terminalColumns } from './fit-columns';
import { jsonText, visibleDeep } from './terminal-text';
import { apiSource, localSource, type ReportSource, type SourceRequest } from './report-source';

export interface ContextOptions {
  item?: string;
  page: string;
  snapshot?: string;
  db?: string;
  databaseUrl?: string;
  session?: string;
  json?: boolean;
  timeline?: boolean;
  wide?: boolean;
  items?: string;
  call?: string;
  estimator?: string;
  api?: string;
  token?: string;
  dataDir?: string;
  export?: string[];
  root?: string;
  sources?: string;
}

export async function runContext(
  workspaceId: string | undefined,
  options: ContextOptions,
  io: Io,
  env: CliEnv,
): Promise<void> {
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
    await withExportSource(options.export, { root: options.root, sources: options.sources }, io, (source, id) =>
      show(io, source, { ...request, workspaceId: id }, options, items, null),
    );
    return;
  }
  if (options.root !== undefined) throw usageError('--root only makes sense with --export');
  if (options.sources !== undefined) throw usageError('--sources only makes sense with --export');
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
    io.out(options.json ? jsonText(content) : (await tables()).renderItemContent(visibleDeep(content)));
    return;
  }
  const report = await source.report(request);
  const width = options.wide ? null : terminalColumns(io.columns, io.env);
  // The table lays out the text it prints: every string made visible first (terminal-text.ts).
  if (options.json) io.out(jsonText(report));
  else if (options.timeline) io.out((await tables()).renderTimeline(visibleDeep(report), width));
  else io.out((await tables()).renderReport(visibleDeep(report), { items: items ?? 5, database, width }));
}

/**
 * The table renderer (cli-table3 and its colours and widths, ~90 KB the bundle would compile at
 * every report) is loaded only when a table is printed: `--json` never loads it.
 */
const tables = () => import('./render-table');
