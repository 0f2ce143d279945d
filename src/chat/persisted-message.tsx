/**
 * A persisted OpenCode message, rendered for people: text (the agent's as Markdown), collapsed
 * reasoning, tool calls as compact rows, attachments as chips, the compaction summary marked.
 * Parts are read through the shared OpenCode format module, tolerantly: unknown shapes degrade
 * to nothing rather than breaking the list.
 */
import { memo } from 'react';
import {
  isPruned,
  isWorkspaceContext,
  parseInfo,
  parsePart,
  parseWorkspaceContext,
  type Part,
  type ToolPart,
} from '../shared/opencode/format';
import { savedToolCall } from '../shared/tool-calls';
import type { ChatMessage } from '../shared/wire';
import { LazyMarkdown } from './lazy-markdown';
import { RelativeTime } from './relative-time';
import { ToolCallRow } from './tool-call-row';
import { useWorkspaceRoot } from './workspace-root';

const ignore = () => {};

/** Memoised: messages from the query cache keep their identity, so adding one re-renders one. */
export const PersistedMessage = memo(function PersistedMessage({ message }: { message: ChatMessage }) {
  if (message.problem) {
    return (
      <article className="message message-problem" aria-label="Unreadable message">
        {message.problem}
      </article>
    );
  }
  const info = parseInfo(message.info, ignore);
  const parts = message.parts.map((raw) => ({ raw, part: parsePart(raw, ignore) }));
  const compaction = parts.find((p) => p.part?.type === 'compaction')?.part;
  if (compaction?.type === 'compaction') {
    return (
      <div className="compaction-marker" role="separator">
        Conversation compacted{compaction.auto ? ' automatically' : ' on request'} — earlier messages are no longer in
        the model context
      </div>
    );
  }
  const role = info.role;
  const summary = role === 'assistant' && info.summary;
  const author = summary ? 'Compaction summary' : role === 'user' ? 'You' : 'Agent';
  return (
    <article className={`message message-${role}${summary ? ' message-summary' : ''}`} aria-label={author}>
      <header className="message-meta">
        <span className="message-author">{author}</span>
        <RelativeTime at={message.timeCreated} />
      </header>
      {parts.map(({ raw, part }, index) =>
        part ? (
          <PartView key={typeof raw.id === 'string' ? raw.id : index} part={part} markdown={role === 'assistant'} />
        ) : null,
      )}
      {role === 'assistant' && <Outcome error={message.info.error} />}
    </article>
  );
});

function PartView({ part, markdown }: { part: Part; markdown: boolean }) {
  switch (part.type) {
    case 'text': {
      if (!part.text || part.ignored) return null;
      if (part.synthetic) return <SyntheticChip text={part.text} />;
      if (!markdown) return <div className="message-text">{part.text}</div>;
      return <LazyMarkdown text={part.text} />;
    }
    case 'reasoning':
      if (!part.text) return null;
      return (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div className="message-text">{part.text}</div>
        </details>
      );
    case 'tool':
      return <ToolRow part={part} />;
    case 'file': {
      const name = part.filename ?? part.sourcePath ?? 'attachment';
      return (
        <span className="chip" title={part.mime}>
          <span aria-hidden="true">📎</span> {name}
          <span className="chip-detail"> {part.mime}</span>
        </span>
      );
    }
    default:
      return null;
  }
}

function SyntheticChip({ text }: { text: string }) {
  if (isWorkspaceContext(text)) {
    const { sections } = parseWorkspaceContext(text);
    return (
      <span className="chip chip-context" title={sections.map((s) => s.label).join(', ')}>
        Workspace context · {sections.length} section{sections.length === 1 ? '' : 's'}
      </span>
    );
  }
  // Attached-file reads and reminders are for the model; the file chip already shows the file.
  return null;
}

/** How a saved reply ended, when not by itself: stopped, or failed (and why). */
function Outcome({ error }: { error: unknown }) {
  if (typeof error !== 'object' || error === null) return null;
  const { name, data } = error as { name?: unknown; data?: { message?: unknown } };
  if (name === 'MessageAbortedError') return <p className="live-phase">Stopped by you</p>;
  const message = typeof data?.message === 'string' ? data.message : typeof name === 'string' ? name : 'an error';
  return <p className="live-phase live-error">Failed: {message}</p>;
}

function ToolRow({ part }: { part: ToolPart }) {
  const root = useWorkspaceRoot();
  const call = savedToolCall(
    {
      tool: part.tool,
      status: part.status,
      input: part.input,
      output: part.output,
      error: part.error,
      title: part.title,
      pruned: isPruned(part),
    },
    root,
  );
  return <ToolCallRow call={call} />;
}
