/**
 * The MCP server as the sandboxed live agent runs it (compiled to build/node/mcp.mjs):
 * `node mcp.mjs WORKSPACE_ID --api URL`, its token in $INVESTIBOOK_TOKEN. The same `mcp` command
 * as the CLI's, built without the database source: the bundle holds no database driver, reads
 * no file but itself, and needs nothing else from the project inside the sandbox.
 */
import { Command } from 'commander';
import { apiSource } from '../program/api-source';
import { exitCodeFor } from '../program/exit';
import { defaultIo } from '../program/io';
import { screenIo } from '../program/terminal-text';
import { cliEnvSchema, readEnv } from '../env';
import { addMcpCommand } from './command';

async function main(argv: string[]): Promise<number> {
  const io = screenIo(defaultIo);
  try {
    const root = new Command('investibook')
      .exitOverride()
      .configureOutput({ writeOut: io.err, writeErr: io.err, outputError: () => {} });
    const env = readEnv(io.env, cliEnvSchema);
    addMcpCommand(
      root,
      io,
      () => env,
      async () => ({ api: apiSource }),
    );
    await root.parseAsync(['mcp', ...argv], { from: 'user' });
    return 0;
  } catch (error) {
    return exitCodeFor(error, io);
  }
}

process.exitCode = await main(process.argv.slice(2));
