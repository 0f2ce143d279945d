/** The workspace folder, for showing paths inside it relative to it (live and saved tool calls alike). */
import { createContext, useContext } from 'react';

export const WorkspaceRoot = createContext<string | undefined>(undefined);

export const useWorkspaceRoot = (): string | undefined => useContext(WorkspaceRoot);
