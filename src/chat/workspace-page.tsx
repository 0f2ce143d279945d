/** Route /w/:workspaceId — loads the workspace, then shows its chat. */
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { ApiError } from '../api/http';
import { workspaceQueries } from '../api/workspace';
import { ChatPanel } from './chat-panel';

export function WorkspacePage() {
  const { workspaceId = '' } = useParams();
  const workspace = useQuery(workspaceQueries.detail(workspaceId));
  if (workspace.isPending)
    return (
      <p className="page-status" role="status">
        Loading workspace…
      </p>
    );
  if (workspace.isError) {
    const error = workspace.error;
    const status = error instanceof ApiError ? error.status : 0;
    return (
      <div className="page-status" role="alert">
        <h1>{status === 401 ? 'Sign in needed' : status === 404 ? 'Workspace not found' : 'Something went wrong'}</h1>
        <p>
          {status === 401 ? (
            <>
              Open the link that <code>npm start</code> printed (it carries your token) to sign in.
            </>
          ) : status === 404 ? (
            'This workspace does not exist, or you do not have access to it.'
          ) : (
            error.message
          )}
        </p>
      </div>
    );
  }
  return <ChatPanel key={workspace.data.id} workspace={workspace.data} />;
}
