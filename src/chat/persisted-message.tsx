/**
 * A persisted OpenCode message, rendered for people: text, collapsed reasoning, tool calls as
 * compact rows, attachments as chips, the compaction summary marked. Unknown shapes degrade to
 * nothing rather than breaking the list.
 */
import { memo } from 'react';
import type { ChatMessage } from '../shared/wire';

type Part = Record<string, unknown>;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const obj = (value: unknown): Part =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Part) : {};

/** Memoised: messages from the query cache keep their identity, so adding one re-renders one. */
export const PersistedMessage = memo(function PersistedMessage({ message }: { message: ChatMessage }) {
  if (message.problem) {
    return (
      <article className="message message-problem" aria-label="Unreadable message">
        {message.problem}
      </article>
    );
  }
  const role = message.info.role === 'assistant' ? 'assistant' : 'user';
  const summary = role === 'assistant' && message.info.summary === true;
  const compactionRequest = message.parts.some((p) => p.type === 'compaction');
  if (compactionRequest) {
    return (
      <div className="compaction-marker" role="separator">
        Conversation compacted
        {obj(message.parts.find((p) => p.type === 'compaction')).auto === false ? ' on request' : ' automatically'} —
        earlier messages are no longer in the model context
      </div>
    );
  }
  return (
    <article
      className={`message message-${role}${summary ? ' message-summary' : ''}`}
      aria-label={summary ? 'Compaction summary' : role === 'user' ? 'You' : 'Agent'}
    >
      <header className="message-meta">
        <span className="message-author">{summary ? 'Compaction summary' : role === 'user' ? 'You' : 'Agent'}</span>
        <time dateTime={new Date(message.timeCreated).toISOString()}>{formatTime(message.timeCreated)}</time>
      </header>
      {message.parts.map((part, index) => (
        <PartView key={str(part.id) ?? index} part={part} />
      ))}
    </article>
  );
});

function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case 'text': {
      const text = str(part.text);
      if (!text || part.ignored === true) return null;
      if (part.synthetic === true) return <SyntheticChip text={text} />;
      return <div className="message-text">{text}</div>;
    }
    case 'reasoning': {
      const text = str(part.text);
      if (!text) return null;
      return (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div className="message-text">{text}</div>
        </details>
      );
    }
    case 'tool':
      return <ToolRow part={part} />;
    case 'file': {
      const name = str(part.filename) ?? str(obj(part.source).path) ?? 'attachment';
      return (
        <span className="chip" title={str(part.mime)}>
          <span aria-hidden="true">📎</span> {name}
          <span className="chip-detail"> {str(part.mime)}</span>
        </span>
      );
    }
    default:
      return null;
  }
}

function SyntheticChip({ text }: { text: string }) {
  if (text.includes('<workspace-context>')) {
    const sections = [...text.matchAll(/<section[^>]*label="([^"]*)"/g)].map((m) => m[1]);
    return (
      <span className="chip chip-context" title={sections.join(', ')}>
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

function ToolRow({ part }: { part: Part }) {
  const state = obj(part.state);
  const tool = str(part.tool) ?? 'tool';
  const input = obj(state.input);
  const status = str(state.status) ?? 'unknown';
  const pruned = obj(state.time).compacted !== undefined;
  const title =
    str(state.title) ??
    str(input.command) ??
    str(input.filePath) ??
    str(input.path) ??
    str(input.name) ??
    str(input.pattern) ??
    '';
  return (
    <div className={`tool-row tool-${status}`}>
      <span className="tool-name">{tool}</span>
      <span className="tool-title" title={title}>
        {title}
      </span>
      <span className="tool-status">
        {STATUS_LABEL[status] ?? status}
        {pruned ? ' · output cleared' : ''}
      </span>
    </div>
  );
}

function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
