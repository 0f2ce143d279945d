/**
 * The local-only transcript: command echoes, notices and command outputs, in the order they
 * happened. Generic — no command is special-cased here; what a command shows lives in its
 * payload and its view. Memory only (no persist middleware), which is what makes "gone on
 * refresh" true by construction.
 */
import { create } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { OutputEntry, TranscriptEntry, TranscriptEntryBody } from '../commands';

interface TranscriptState {
  entries: TranscriptEntry[];
  actions: {
    localMessageAdded: (workspaceId: string, body: TranscriptEntryBody, sessionId?: string | null) => string;
    commandOutputUpdated: (id: string, payload: unknown) => void;
    localMessageDismissed: (id: string) => void;
  };
}

let counter = 0;

export const useTranscriptStore = create<TranscriptState>()((set) => ({
  entries: [],
  actions: {
    localMessageAdded: (workspaceId, body, sessionId) => {
      const id = `local-${++counter}`;
      const entry = {
        ...body,
        id,
        workspaceId,
        createdAt: Date.now(),
        ...(sessionId !== undefined ? { sessionId } : {}),
      };
      set((state) => ({ entries: [...state.entries, entry] }));
      return id;
    },
    commandOutputUpdated: (id, payload) =>
      set((state) => ({
        entries: state.entries.map((e) => (e.id === id && e.kind === 'output' ? { ...e, payload } : e)),
      })),
    localMessageDismissed: (id) => set((state) => ({ entries: state.entries.filter((e) => e.id !== id) })),
  },
}));

export const useTranscript = (workspaceId: string): TranscriptEntry[] =>
  useTranscriptStore(useShallow((state) => state.entries.filter((e) => e.workspaceId === workspaceId)));

/** Every output of one command in a workspace, oldest first: what a view derives history from. */
export const useCommandOutputs = <P>(workspaceId: string, command: string): OutputEntry<P>[] =>
  useTranscriptStore(
    useShallow(
      (state) =>
        state.entries.filter(
          (e) => e.kind === 'output' && e.workspaceId === workspaceId && e.command === command,
        ) as OutputEntry<P>[],
    ),
  );

export const useTranscriptActions = () => useTranscriptStore((state) => state.actions);
