/** Where the CLI gets its answers: the store directly (read-only), or a running server (api-source.ts). */
import { openStore } from '../storage/open';
import type { Store } from '../storage/store';
import { ReportService, type ServiceOptions } from '../report/service';
import { workspaceAt, type ReportSource } from './api-source';

export { apiSource, type ItemRequest, type ReportSource, type SourceRequest } from './api-source';

export function localSource(database: string, cwd: string, dataDir?: string): ReportSource {
  const open = async () => {
    const store = await openStore({ location: database, readOnly: true, ...(dataDir ? { dataDir } : {}) });
    return { store, done: () => store.close() };
  };
  return storeSource(open, `from the database ${database} (read-only)`, cwd);
}

/** The answers of a store already open (an export's, in memory), which its owner closes. */
export function openStoreSource(store: Store, from: string, cwd: string, service: ServiceOptions = {}): ReportSource {
  return storeSource(async () => ({ store, done: async () => {} }), from, cwd, service);
}

function storeSource(
  open: () => Promise<{ store: Store; done: () => Promise<void> }>,
  from: string,
  cwd: string,
  service: ServiceOptions = {},
): ReportSource {
  const withStore = async <T>(work: (store: Store, workspaceAt: () => Promise<string>) => Promise<T>) => {
    const { store, done } = await open();
    try {
      const here = async () => {
        const workspaces = await store.listWorkspaces();
        return workspaceAt(
          workspaces.map((w) => ({ id: w.id, root: store.resolveRoot(w.root_path) })),
          cwd,
        );
      };
      return await work(store, here);
    } finally {
      await done();
    }
  };
  return {
    describe: (workspaceId) =>
      withStore(async (store, here) => {
        const id = workspaceId ?? (await here().catch(() => null));
        if (!id) return `no workspace yet: none holds ${cwd} (name one), ${from}`;
        const workspace = await store.getWorkspace(id);
        return workspace
          ? `workspace ${id} (folder ${store.resolveRoot(workspace.root_path)}), ${from}`
          : `workspace ${id}, which the database does not have, ${from}`;
      }),
    report: (request) =>
      withStore(async (store, here) =>
        new ReportService(store, service).report({ ...request, workspaceId: request.workspaceId ?? (await here()) }),
      ),
    item: (request) =>
      withStore(async (store, here) =>
        new ReportService(store, service).itemContent({
          ...request,
          workspaceId: request.workspaceId ?? (await here()),
        }),
      ),
  };
}
