/**
 * Claude Code's own item in parts, from the request shapes its transcript records
 * (`api-request-shape` entries: the system blocks and every tool definition, as sent), which
 * import keeps as the session's runtime records (docs/claude-code.md): each system block and
 * each tool schema with an estimate in the report's tokenizer. The tools it defers (their names
 * only, in a reminder) are counted with the reminders, not here. Pure.
 */
import { preview } from '../text';
import type { Estimator, RecordedRuntime, RuntimePartEstimate, RuntimePartsEstimate } from '../types';
import { isObject, type Json } from './entry';

/** What a record of Claude Code's request shape holds (its `definitions`, as JSON text). */
export const REQUEST_SHAPE = 'claude-code/api-request-shape';

export interface RecordedShape {
  kind: typeof REQUEST_SHAPE;
  shape: { system?: Json[]; tools?: Json[] };
}

export function readShape(definitions: string | null): RecordedShape | null {
  if (definitions === null) return null;
  try {
    const parsed: unknown = JSON.parse(definitions);
    return isObject(parsed) && parsed.kind === REQUEST_SHAPE && isObject(parsed.shape)
      ? (parsed as unknown as RecordedShape)
      : null;
  } catch {
    return null;
  }
}

const NONE =
  'no request shape was recorded with this session (Claude Code writes one to its transcript when it sends a new system prompt or tool list; this transcript has none), so its own prompt and tool schemas stay one measured block';

export function claudeCodeRuntimeParts(
  records: readonly RecordedRuntime[],
  call: { agent: string | null; model: string | null; at?: number },
  estimator: Estimator,
): RuntimePartsEstimate {
  const shapes = records
    .map((record) => ({ record, shape: readShape(record.definitions) }))
    .filter((r): r is { record: RecordedRuntime; shape: RecordedShape } => r.shape !== null)
    .sort((a, b) => a.record.recordedAt - b.record.recordedAt);
  // The shape in force at the call: the latest recorded before it.
  const chosen = shapes.filter((s) => call.at === undefined || s.record.recordedAt <= call.at).at(-1) ?? shapes[0];
  if (!chosen) return { reason: NONE };
  const parts: RuntimePartEstimate[] = [];
  const system = Array.isArray(chosen.shape.shape.system) ? chosen.shape.shape.system.filter(isObject) : [];
  system.forEach((block, i) => {
    const text = typeof block.text === 'string' ? block.text : '';
    parts.push({
      kind: 'system_prompt',
      label: `System prompt, block ${i + 1}: ${preview(text.trim(), 50)}`,
      estimate: estimator.count(text),
    });
  });
  const tools = Array.isArray(chosen.shape.shape.tools) ? chosen.shape.shape.tools.filter(isObject) : [];
  for (const tool of tools) {
    const name = typeof tool.name === 'string' ? tool.name : 'unnamed';
    parts.push({ kind: 'tool', label: `Tool: ${name}`, name, estimate: estimator.count(JSON.stringify(tool)) });
  }
  return {
    parts,
    recordedAt: chosen.record.recordedAt,
    notes: [
      'The tools Claude Code defers (loaded on demand by ToolSearch) are named in a reminder, counted with the reminders.',
    ],
  };
}
