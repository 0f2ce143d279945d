/**
 * A persisted OpenCode message, rendered for people: text (the agent's as Markdown), collapsed
 * reasoning, tool calls as compact rows, attachments as chips, the compaction summary marked.
 * Parts are read through the shared OpenCode format module, tolerantly: unknown shapes degrade
 * to nothing rather than breaking the list.
 */
import { lazy, memo, Suspense } from 'react';
import {
  isPruned,
  isWorkspaceContext,
  parseInfo,
  parsePart,
  parseWorkspaceContext,
  type Part,
  type ToolPart,
} from '../shared/opencode/format';
import type { ChatMessage } from '../shared/wire';

// The Markdown renderer is its own chunk: the first paint shows plain text, then the formatting.
const Markdown = lazy(() => import('./markdown'));
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
        <time dateTime={new Date(message.timeCreated).toISOString()}>{formatTime(message.timeCreated)}</time>
      </header>
      {parts.map(({ raw, part }, index) =>
        part ? (
          <PartView key={typeof raw.id === 'string' ? raw.id : index} part={part} markdown={role === 'assistant'} />
        ) : null,
      )}
    </article>
  );
});

function PartView({ part, markdown }: { part: Part; markdown: boolean }) {
  switch (part.type) {
    case 'text': {
      if (!part.text || part.ignored) return null;
      if (part.synthetic) return <SyntheticChip text={part.text} />;
      if (!markdown) return <div className="message-text">{part.text}</div>;
      return (
        <Suspense fallback={<div className="message-text">{part.text}</div>}>
          <Markdown text={part.text} />
        </Suspense>
      );
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

const STATUS_LABEL: Record<string, string> = {
  completed: 'done',
  error: 'failed',
  running: 'interrupted',
  pending: 'interrupted',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function ToolRow({ part }: { part: ToolPart }) {
  const { input } = part;
  const title =
    part.title ??
    text(input.command) ??
    text(input.filePath) ??
    text(input.path) ??
    text(input.name) ??
    text(input.pattern) ??
    '';
  return (
    <div className={`tool-row tool-${part.status}`}>
      <span className="tool-name">{part.tool}</span>
      <span className="tool-title" title={title}>
        {title}
      </span>
      <span className="tool-status">
        {STATUS_LABEL[part.status] ?? part.status}
        {isPruned(part) ? ' · output cleared' : ''}
      </span>
    </div>
  );
}

const dateTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const formatTime = (ms: number): string => dateTime.format(ms);
