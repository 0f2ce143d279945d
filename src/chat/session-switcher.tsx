/**
 * The workspace's conversations, most recent first — each by its title, when it was last active,
 * how much context it used and, for an imported one, where it came from — and the one shown. A subagent's session (one a `task` call
 * made) is listed under the conversation that made it, never as a conversation of its own.
 * Picking one opens it in the chat.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import { workspaceQueries } from '../api/workspace';
import { fmt } from '../shared/format';
import type { SessionSummary, Workspace } from '../shared/wire';
import { RelativeTime } from './relative-time';
import { originText } from './session-origin';
import { NEW_SESSION_TITLE, sessionTitleOf } from './session-title';

export function SessionSwitcher({
  workspace,
  sessionId,
  onOpen,
}: {
  workspace: Workspace;
  sessionId: string | null;
  onOpen: (sessionId: string) => void;
}) {
  const listId = useId();
  const box = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useOpenList(box, workspace.id);
  const toggle = useRef<HTMLButtonElement>(null);
  const sessions = workspace.sessions;
  // A session the agent has only just started is not listed yet: it is still the one shown.
  const unlisted = sessionId !== null && !sessions.some((s) => s.id === sessionId);
  const conversations = conversationsOf(sessions);
  const title = sessionTitleOf(workspace, sessionId) ?? 'No conversation yet';

  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };

  return (
    <div
      className="session-switcher"
      ref={box}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          close();
        }
      }}
    >
      <button
        type="button"
        ref={toggle}
        className="session-toggle"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen((o) => !o)}
        disabled={sessions.length === 0 && !unlisted}
      >
        <span className="visually-hidden">Conversation: </span>
        <span className="session-current">{title}</span>
        {conversations.length > 1 && (
          <span className="session-count"> · {fmt(conversations.length)} conversations</span>
        )}
      </button>
      {open && (
        <SessionList
          id={listId}
          conversations={conversations}
          unlisted={unlisted}
          current={sessionId}
          onOpen={onOpen}
          close={close}
        />
      )}
    </div>
  );
}

interface Conversation {
  session: SessionSummary;
  /** Its subagents' sessions (made by its `task` calls), listed under it. */
  children: SessionSummary[];
}

/** The conversations, in the list's order, each with its subagents' sessions. */
function conversationsOf(sessions: readonly SessionSummary[]): Conversation[] {
  const listed = new Set(sessions.map((s) => s.id));
  const isChild = (s: SessionSummary) => s.parentSessionId !== undefined && listed.has(s.parentSessionId);
  return sessions
    .filter((s) => !isChild(s))
    .map((session) => ({ session, children: sessions.filter((s) => isChild(s) && s.parentSessionId === session.id) }));
}

/**
 * Whether the list is open. While it is: it is asked for again, its current (or first) entry has
 * the focus, and a press outside the switcher closes it.
 */
function useOpenList(box: RefObject<HTMLDivElement | null>, workspaceId: string) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!open) return;
    // Opened, the list is asked for again: a subagent's session read back after the turn, or a
    // conversation imported meanwhile, is there without a reload.
    void queryClient.invalidateQueries({ queryKey: workspaceQueries.detail(workspaceId).queryKey });
    box.current?.querySelector<HTMLButtonElement>('[aria-current="true"], button')?.focus();
    const away = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open, queryClient, workspaceId, box]);
  return [open, setOpen] as const;
}

function SessionList({
  id,
  conversations,
  unlisted,
  current,
  onOpen,
  close,
}: {
  id: string;
  conversations: Conversation[];
  unlisted: boolean;
  current: string | null;
  onOpen: (sessionId: string) => void;
  close: () => void;
}) {
  return (
    <ul id={id} className="session-list" aria-label="Conversations in this workspace">
      {unlisted && (
        <li>
          <button type="button" aria-current="true" onClick={close}>
            <span className="session-title">{NEW_SESSION_TITLE}</span>
            <span className="session-facts muted">just started</span>
          </button>
        </li>
      )}
      {conversations.map(({ session: s, children }) => (
        <li key={s.id}>
          <SessionButton session={s} current={current} onOpen={onOpen} close={close} />
          {children.length > 0 && (
            <ul className="session-children" aria-label={`Subagents of ${s.title ?? 'this conversation'}`}>
              {children.map((child) => (
                <li key={child.id}>
                  <SessionButton session={child} current={current} onOpen={onOpen} close={close} subagent />
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

function SessionButton({
  session: s,
  current,
  onOpen,
  close,
  subagent = false,
}: {
  session: SessionSummary;
  current: string | null;
  onOpen: (sessionId: string) => void;
  close: () => void;
  subagent?: boolean;
}) {
  return (
    <button
      type="button"
      aria-current={s.id === current ? 'true' : undefined}
      onClick={() => {
        if (s.id !== current) onOpen(s.id);
        close();
      }}
    >
      <span className="session-title">
        {subagent && <span className="session-kind">Subagent: </span>}
        {s.title ?? 'Untitled conversation'}
      </span>
      <span className="session-facts muted">
        {subagent && 'made by a task call · '}
        <RelativeTime at={s.lastActiveAt} />
        {' · '}
        {s.contextUsed != null
          ? `${fmt(s.contextUsed)}${s.contextSize ? ` / ${fmt(s.contextSize)}` : ''} tokens`
          : 'no usage reported'}
        {' · '}
        {fmt(s.messageCount)} {s.messageCount === 1 ? 'message' : 'messages'}
      </span>
      {s.origin && <span className="session-origin muted">{originText(s.origin)}</span>}
    </button>
  );
}
