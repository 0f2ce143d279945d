/**
 * The `import` command's options (contract §8). Its work — the streaming reader, the database —
 * is loaded only when it runs (src/node/import/run-import.ts), so `investibook --help` and the
 * other commands never load it.
 */
import type { Command } from 'commander';
import type { CliEnv } from '../env';
import type { Io } from '../program/io';
import type { ImportOptions } from '../import/run-import';

/** `env`: the environment, parsed once a command runs. */
export function addImportCommand(root: Command, io: Io, env: () => CliEnv): void {
  root
    .command('import')
    .description(
      "import OpenCode sessions (files `opencode export SESSION_ID` printed, - for standard input, gzip too; or a folder's from your own OpenCode) or Claude Code transcripts (.jsonl files, or --from-claude-code)",
    )
    .argument('[files...]', 'export files')
    .option(
      '--workspace <id>',
      'the workspace (default: the session’s, else the one whose folder holds it, else a new one)',
    )
    .option(
      '--root <dir>',
      'the workspace folder of a new workspace (default: the export’s own folder, when it is here)',
    )
    .option(
      '--user <id>',
      'the user who may see a new workspace in the web app (default: the demo user, else the only user)',
    )
    .option(
      '--db <path>',
      'SQLite database (default: $INVESTIBOOK_DB, else the nearest data/investibook.db); created when missing',
    )
    .option('--database-url <url>', 'PostgreSQL database (default: $INVESTIBOOK_DATABASE_URL)')
    .option(
      '--from-opencode [dir]',
      'ask your own OpenCode for the sessions of DIR (default: this folder); nothing of OpenCode’s is written',
    )
    .option(
      '--from-claude-code [dir]',
      'the Claude Code transcripts of DIR (default: this folder) in ~/.claude/projects; nothing of Claude Code’s is written',
    )
    .option('--session <id>', 'with --from-opencode or --from-claude-code: only this session (and its subagents’)')
    .option(
      '--opencode <path>',
      'with --from-opencode: the OpenCode program (default: $INVESTIBOOK_OPENCODE, else opencode on PATH)',
    )
    .option(
      '--no-count',
      'store no token counts now (memory like a report of the largest session is then not needed): reports count as they read; `investibook db count` stores them later',
    )
    .exitOverride()
    .action(async (files: string[], options: ImportOptions) => {
      const { runImport } = await import('../import/run-import');
      await runImport(files, options, io, env());
    });
}
