/**
 * OpenCode's write side (runtime-seam.ts): `opencode acp` as the workspace's agent, configured
 * by configure.ts, its sessions read back as its export prints them — from its storage by its
 * own binary as a script runner for the pinned version (session-reader.ts), else with its export
 * (`opencode export`), each run as the agent is — into rows in its own shapes
 * (session-export.ts), its subagents and definitions recorded after (record.ts), a report's
 * revert made through its own server (revert.ts). Its read side is core/opencode.
 */
import { RUNTIME_TITLES } from '../../../shared/runtimes';
import { promptText } from '../../user-message';
import { AgentProcessError } from '../acp-process';
import type { RuntimeWriteSide } from '../runtime-seam';
import { opencodeEgress, prepareOpencode, SERVER_USER } from './configure';
import { exportSession } from './export-session';
import { recordOpencode } from './record';
import { opencodeReverter } from './revert';
import { READER_ENV, sessionReader } from './session-reader';
import { checkSessionExport, latestTime, messageRows, type SessionExport } from './session-export';

export const opencodeWriteSide: RuntimeWriteSide = {
  name: 'opencode',
  title: RUNTIME_TITLES.opencode,
  serverUser: SERVER_USER,
  async program(settings) {
    if (!settings.command)
      throw new AgentProcessError('no agent command: set INVESTIBOOK_AGENT_COMMAND', 'agent_not_found');
    return { command: settings.command, args: settings.args };
  },
  prepare: prepareOpencode,
  egress: opencodeEgress,
  reverter: opencodeReverter,
  async readBack(context) {
    const exporter = context.settings.exporter;
    if (!exporter) return null;
    const runExport = async (sessionId: string): Promise<SessionExport> => {
      const reader = sessionReader(context.settings.runtimeServer?.command, sessionId);
      if (reader) {
        try {
          const how = await context.launch(reader);
          return await exportSession({ ...how, env: { ...how.env, ...READER_ENV } });
        } catch (error) {
          // OpenCode's storage not as the reader knows it: its own export says what it holds.
          context.log(`session ${sessionId} not read from OpenCode's storage (${(error as Error).message}): exported`);
        }
      }
      return exportSession(
        await context.launch({
          command: exporter.command,
          args: exporter.args.map((arg: string) => arg.replaceAll('{session}', sessionId)),
        }),
      );
    };
    const exported = await runExport(context.sessionId);
    const rows = messageRows(exported);
    return {
      rows,
      prompts: rows.flatMap((row) => {
        const text = (row.info as { role?: unknown }).role === 'user' ? promptText(row.parts) : null;
        return text === null ? [] : [text];
      }),
      record: (recording) => recordOpencode(recording, context.settings, exported, runExport),
    };
  },
  exports: { check: checkSessionExport, latestTime, rows: messageRows },
};
