/**
 * The chat's messages with their runtime-neutral transcript (shared/transcript.ts): each stored
 * row is mapped by the runtime that wrote it (its `messages_v2.runtime`, through the registry),
 * a session's rows of one runtime together, and every message is validated with the one schema
 * before it is sent — a mapper's mistake is shown as an unreadable message, never sent on.
 */
import { transcriptMessageSchema, type TranscriptMessage } from '../../shared/transcript';
import type { ChatMessage } from '../../shared/wire';
import { RUNTIME_TITLES, isRuntimeName } from '../../shared/runtimes';
import { runtimeNamed } from '../report/runtimes';

/** `messages` with their transcript, in their order; `runtimes[i]` is the runtime that wrote `messages[i]`. */
export function withTranscripts(
  messages: readonly ChatMessage[],
  runtimes: readonly (string | null | undefined)[],
): ChatMessage[] {
  const out = [...messages];
  const byRuntime = new Map<string | null, number[]>();
  messages.forEach((message, index) => {
    if (message.problem) return;
    const name = runtimes[index] ?? null;
    byRuntime.set(name, [...(byRuntime.get(name) ?? []), index]);
  });
  for (const [name, indices] of byRuntime) {
    const map = runtimeNamed(name)?.chatTranscript;
    if (!map) {
      for (const i of indices) out[i] = unknownRuntime(messages[i]!, name);
      continue;
    }
    const mapped = map(
      indices.map((i) => ({ id: messages[i]!.id, info: messages[i]!.info, parts: messages[i]!.parts })),
    );
    indices.forEach((i, k) => {
      out[i] = checked(messages[i]!, mapped[k], name);
    });
  }
  return out;
}

function checked(message: ChatMessage, transcript: TranscriptMessage | undefined, name: string | null): ChatMessage {
  const valid = transcriptMessageSchema.safeParse(transcript);
  const runtime = name === null ? {} : { runtime: name };
  if (valid.success) return { ...message, ...runtime, transcript: valid.data };
  return {
    ...message,
    ...runtime,
    problem: `This message could not be read as ${title(name)}'s: ${valid.error.issues[0]?.message ?? 'an unexpected shape'}.`,
  };
}

function unknownRuntime(message: ChatMessage, name: string | null): ChatMessage {
  return {
    ...message,
    ...(name === null ? {} : { runtime: name }),
    problem: `This message was written by ${title(name)}, whose messages the chat cannot show.`,
  };
}

/** A row that names no runtime is OpenCode's (contract §10). */
const title = (name: string | null): string => {
  const runtime = name ?? 'opencode';
  return isRuntimeName(runtime) ? RUNTIME_TITLES[runtime] : runtime;
};
