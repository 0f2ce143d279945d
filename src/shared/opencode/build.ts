/**
 * Parts in the shapes OpenCode writes them (the inverse of format.ts), for the code that must
 * make messages: tests, the chat's own user messages. Kept beside the reader so the two cannot
 * drift apart: the round trip is tested. Browser-safe.
 */
import type { Json } from './format';

export interface ToolSpec {
  tool: string;
  input: Json;
  status?: 'completed' | 'error' | 'running' | 'pending';
  output?: string;
  error?: string;
  title?: string;
  metadata?: Json;
  callID?: string;
  time?: { start?: number; end?: number; compacted?: number };
}

export const part = {
  text: (text: string, options: { synthetic?: boolean; ignored?: boolean } = {}): Json => ({
    type: 'text',
    text,
    ...(options.synthetic ? { synthetic: true } : {}),
    ...(options.ignored ? { ignored: true } : {}),
  }),
  reasoning: (text: string): Json => ({ type: 'reasoning', text, time: { start: 0, end: 0 } }),
  file: (file: { mime: string; filename?: string; url: string; sourcePath?: string }): Json => ({
    type: 'file',
    mime: file.mime,
    ...(file.filename ? { filename: file.filename } : {}),
    url: file.url,
    ...(file.sourcePath
      ? { source: { type: 'file', path: file.sourcePath, text: { value: `@${file.sourcePath}`, start: 0, end: 0 } } }
      : {}),
  }),
  tool: (spec: ToolSpec): Json => {
    const status = spec.status ?? 'completed';
    const time = {
      start: spec.time?.start ?? 1,
      end: spec.time?.end ?? 2,
      ...(spec.time?.compacted === undefined ? {} : { compacted: spec.time.compacted }),
    };
    const state: Json =
      status === 'completed'
        ? {
            status,
            input: spec.input,
            output: spec.output ?? '',
            title: spec.title ?? spec.tool,
            metadata: spec.metadata ?? {},
            time,
          }
        : status === 'error'
          ? {
              status,
              input: spec.input,
              error: spec.error ?? spec.output ?? 'failed',
              ...(spec.metadata ? { metadata: spec.metadata } : {}),
              time,
            }
          : status === 'running'
            ? { status, input: spec.input, time: { start: time.start } }
            : { status, input: spec.input, raw: JSON.stringify(spec.input) };
    return { type: 'tool', callID: spec.callID ?? `call_${spec.tool}`, tool: spec.tool, state };
  },
  stepStart: (): Json => ({ type: 'step-start' }),
  stepFinish: (tokens: { input: number; output?: number; cacheRead?: number; cacheWrite?: number }): Json => ({
    type: 'step-finish',
    reason: 'stop',
    cost: 0,
    tokens: {
      input: tokens.input,
      output: tokens.output ?? 0,
      reasoning: 0,
      cache: { read: tokens.cacheRead ?? 0, write: tokens.cacheWrite ?? 0 },
    },
  }),
  compaction: (options: { auto?: boolean; tailStartId?: string } = {}): Json => ({
    type: 'compaction',
    auto: options.auto ?? true,
    ...(options.tailStartId ? { tail_start_id: options.tailStartId } : {}),
  }),
  subtask: (spec: { prompt: string; description: string; agent?: string }): Json => ({
    type: 'subtask',
    prompt: spec.prompt,
    description: spec.description,
    agent: spec.agent ?? 'general',
  }),
};

/** The read tool's output for a file's lines (opencode 1.18.33, tool/read.ts). */
export function readOutput(absolutePath: string, lines: readonly string[], offset = 1): string {
  const numbered = lines.map((line, i) => `${offset + i}: ${line}`).join('\n');
  const last = offset + lines.length - 1;
  return `<path>${absolutePath}</path>\n<type>file</type>\n<content>\n${numbered}\n\n(End of file - total ${last} lines)\n</content>`;
}
