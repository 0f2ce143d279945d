/**
 * The agent's way to its own context report: an HTTP gateway on a Unix socket only its sandbox is
 * shown (the MCP server inside asks a relay on the agent's loopback, which passes to it). It passes
 * `GET` and `HEAD` of this workspace's `/debug/context` — and nothing else — to the server, so
 * even a command that took the report grant out of `/proc` can reach no other route, no static
 * file, no sign-in link. The grant itself is still checked by the server (report-grants.ts).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';

export function reportPath(workspaceId: string): string {
  return `/api/workspace/${encodeURIComponent(workspaceId)}/debug/context`;
}

/** Whether a request line is the workspace's report (its query string is the report's own parameters). */
export function isReportRequest(method: string | undefined, url: string | undefined, workspaceId: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const path = (url ?? '').split('?')[0];
  return path === reportPath(workspaceId);
}

export function startReportGateway(socketPath: string, origin: string, workspaceId: string): Promise<Server> {
  const target = new URL(origin);
  const server = createServer((req, res) => {
    if (!isReportRequest(req.method, req.url, workspaceId)) {
      res.writeHead(403, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end(
        JSON.stringify({
          error: {
            code: 'not_the_report',
            message: 'the agent reaches its own workspace’s context report and nothing else',
          },
        }),
      );
      return;
    }
    const headers: Record<string, string> = { host: target.host };
    for (const name of ['authorization', 'accept', 'x-request-id']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({ error: { code: 'server_unreachable', message: 'investibook’s server did not answer' } }),
        );
      } else res.destroy();
    });
    upstream.end();
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve(server));
  });
}
