/** Providers and routes. One QueryClient per app, created once. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { WorkspacePage } from '../chat/workspace-page';

export function App({ queryClient }: { queryClient?: QueryClient }) {
  const [client] = useState(
    () => queryClient ?? new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } }),
  );
  return (
    <QueryClientProvider client={client}>
      <BrowserRouter>
        <Routes>
          <Route path="/w/:workspaceId" element={<WorkspacePage />} />
          <Route
            path="*"
            element={
              <div className="page-status">
                <h1>investibook</h1>
                <p>
                  Open a workspace link, for example the one <code>npm start</code> printed: <code>/w/demo</code>.
                </p>
              </div>
            }
          />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
