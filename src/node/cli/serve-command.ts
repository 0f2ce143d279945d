/**
 * `investibook serve`: the web app and the API, as `npm start` serves them in a checkout — the
 * same environment variables (PORT, HOST, INVESTIBOOK_DB, …; README "Configuration"), the demo
 * seeded into a new database, the `Open …` line. It is how an installed package (`npm i -g`)
 * runs the server, which ships compiled with the web app built (package.json `files`). The
 * server is loaded only when this command runs.
 */
import type { Command } from 'commander';
import type { Io } from '../program/io';
import { restoreYoungGenerationGrowth } from './lean-heap';

export function addServeCommand(root: Command, io: Io): void {
  root
    .command('serve')
    .description('serve the web app and the API (as npm start: configured by PORT, HOST, INVESTIBOOK_DB, …)')
    .exitOverride()
    .action(async () => {
      restoreYoungGenerationGrowth();
      // It runs until SIGINT or SIGTERM, which the server's own handlers answer (server/main.ts).
      await (await import('../server/main')).main(io.env);
    });
}
