/**
 * Claude Code's import side (import-side.ts): its transcripts, recognised by their first line,
 * and `--from-claude-code`, which lists the ones it keeps in ~/.claude/projects.
 */
import type { LoadedFile, RuntimeImport } from '../import-side';
import { importClaudeCode, isTranscript, readTranscripts } from './run';
import { writeTranscripts } from './write-transcripts';

export const claudeCodeImport: RuntimeImport = {
  name: 'claude-code',
  files: 'Claude Code transcripts',
  from: { option: 'fromClaudeCode', flag: '--from-claude-code' },
  recognises: isTranscript,
  importFiles: (sources, _request, run) => importClaudeCode(sources, run.options, run.io, run.env, run.writing),
  importFrom: (run) => importClaudeCode(null, run.options, run.io, run.env, run.writing),
  load: async (path, name) => loadTranscript(path, name),
};

/** A transcript for the report from a file (`debug context --export`): read whole, written when asked. */
function loadTranscript(path: string, file: string): LoadedFile {
  const sessions = readTranscripts([{ path, name: file }]);
  return {
    directory: sessions[0]!.directory ?? undefined,
    noun: 'transcript',
    write: async (store, workspaceId, root) => {
      await writeTranscripts(store, sessions, { workspaceId, root, kind: 'claude_code_transcript', now: Date.now() });
    },
  };
}
