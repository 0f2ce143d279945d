/** Where the CLI gets its answers: the store directly (read-only), or a running server (api-source.ts). */
import { openStore } from '../storage/open';
import { ReportService } from '../report/service';
import { workspaceAt, type ReportSource } from './api-source';

export { apiSource, type ItemRequest, type ReportSource, type SourceRequest } from './api-source';

export function localSource(database: string, cwd: string, dataDir?: string): ReportSource {
  const withService = async <T>(work: (service: ReportService, workspaceAt: () => Promise<string>) => Promise<T>) => {
    const store = await openStore({ location: database, readOnly: true, ...(dataDir ? { dataDir } : {}) });
    try {
      const here = async () => {
        const workspaces = await store.listWorkspaces();
        return workspaceAt(
          workspaces.map((w) => ({ id: w.id, root: store.resolveRoot(w.root_path) })),
          cwd,
        );
      };
      return await work(new ReportService(store), here);
    } finally {
      await store.close();
    }
  };
  return {
    report: (request) =>
      withService(async (service, here) =>
        service.report({ ...request, workspaceId: request.workspaceId ?? (await here()) }),
      ),
    item: (request) =>
      withService(async (service, here) =>
        service.itemContent({ ...request, workspaceId: request.workspaceId ?? (await here()) }),
      ),
  };
}
