/**
 * A persisted message, rendered for people from its runtime-neutral transcript (shared/
 * transcript.ts; the server maps each runtime's rows to it): text (the agent's as Markdown),
 * collapsed reasoning, tool calls as compact rows, attachments as chips, the workspace context as
 * a chip, a compaction and its summary marked, how a reply ended. The runtime's own shapes
 * (`info`, `parts`) are never read here.
 */
import { memo } from 'react';
import { savedToolCall } from '../shared/tool-calls';
import type { TranscriptPart, TranscriptTool } from '../shared/transcript';
import type { ChatMessage } from '../shared/wire';
import { LazyMarkdown } from './lazy-markdown';
import { RelativeTime } from './relative-time';
import { ToolCallRow } from './tool-call-row';
import { useWorkspaceRoot } from './workspace-root';

/** Memoised: messages from the query cache keep their identity, so adding one re-renders one. */
export const PersistedMessage = memo(function PersistedMessage({ message }: { message: ChatMessage }) {
  const transcript = message.transcript;
  if (message.problem || !transcript) {
    return (
      <article className="message message-problem" aria-label="Unreadable message">
        {message.problem ?? 'This message cannot be shown.'}
      </article>
    );
  }
  if (transcript.kind === 'hidden') return null;
  if (transcript.kind === 'compaction') {
    return (
      <div className="compaction-marker" role="separator">
        Conversation compacted{transcript.auto ? ' automatically' : ' on request'} — earlier messages are no longer in
        the model context
      </div>
    );
  }
  const { role, outcome } = transcript;
  const summary = transcript.kind === 'summary';
  const author = summary ? 'Compaction summary' : role === 'user' ? 'You' : 'Agent';
  return (
    <article className={`message message-${role}${summary ? ' message-summary' : ''}`} aria-label={author}>
      <header className="message-meta">
        <span className="message-author">{author}</span>
        <RelativeTime at={message.timeCreated} />
      </header>
      {transcript.parts.map((part, index) => (
        <PartView
          key={part.type === 'tool' && part.callId ? part.callId : index}
          part={part}
          markdown={role === 'assistant'}
        />
      ))}
      {outcome?.kind === 'stopped' && <p className="live-phase">Stopped by you</p>}
      {outcome?.kind === 'failed' && <p className="live-phase live-error">Failed: {outcome.message}</p>}
    </article>
  );
});

function PartView({ part, markdown }: { part: TranscriptPart; markdown: boolean }) {
  switch (part.type) {
    case 'text':
      return markdown ? <LazyMarkdown text={part.text} /> : <div className="message-text">{part.text}</div>;
    case 'reasoning':
      return (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div className="message-text">{part.text}</div>
        </details>
      );
    case 'tool':
      return <ToolRow part={part} />;
    case 'file':
      return (
        <span className="chip" title={part.mime}>
          <span aria-hidden="true">📎</span> {part.name}
          <span className="chip-detail"> {part.mime}</span>
        </span>
      );
    case 'context':
      return (
        <span className="chip chip-context" title={part.sections.join(', ')}>
          Workspace context · {part.sections.length} section{part.sections.length === 1 ? '' : 's'}
        </span>
      );
  }
}

function ToolRow({ part }: { part: TranscriptTool }) {
  const root = useWorkspaceRoot();
  return <ToolCallRow call={savedToolCall(part, root)} />;
}
