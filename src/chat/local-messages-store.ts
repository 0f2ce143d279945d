/**
 * Local-only transcript entries (command echoes, /help, /debug reports). Memory only — no
 * persist middleware — which is what makes "gone on refresh" true by construction.
 */
import { create } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { LocalMessage, LocalMessageBody } from '../commands';
import type { ContextReport } from '../shared/wire';

type Stored = LocalMessage & { workspaceId: string };

interface LocalMessagesState {
  messages: Stored[];
  /** The last report shown per workspace and session, for "change since the previous /debug". */
  lastReports: Record<string, ContextReport>;
  actions: {
    localMessageAdded: (workspaceId: string, body: LocalMessageBody) => string;
    localMessageReplaced: (id: string, body: LocalMessageBody) => void;
    localMessageDismissed: (id: string) => void;
  };
}

let counter = 0;

export const reportKey = (workspaceId: string, sessionId: string | null): string =>
  `${workspaceId}\u0000${sessionId ?? ''}`;

export const useLocalMessagesStore = create<LocalMessagesState>()((set) => ({
  messages: [],
  lastReports: {},
  actions: {
    localMessageAdded: (workspaceId, body) => {
      const id = `local-${++counter}`;
      set((state) => ({ messages: [...state.messages, { ...body, id, workspaceId, createdAt: Date.now() }] }));
      return id;
    },
    localMessageReplaced: (id, body) =>
      set((state) => {
        const messages = state.messages.map((m) =>
          m.id === id ? { ...body, id, workspaceId: m.workspaceId, createdAt: m.createdAt } : m,
        );
        if (body.kind !== 'context-report' || body.state.status !== 'ready') return { messages };
        return {
          messages,
          lastReports: { ...state.lastReports, [reportKey(body.workspaceId, body.sessionId)]: body.state.report },
        };
      }),
    localMessageDismissed: (id) => set((state) => ({ messages: state.messages.filter((m) => m.id !== id) })),
  },
}));

export const useLocalMessages = (workspaceId: string): Stored[] =>
  useLocalMessagesStore(useShallow((state) => state.messages.filter((m) => m.workspaceId === workspaceId)));

export const useLocalMessageActions = () => useLocalMessagesStore((state) => state.actions);
