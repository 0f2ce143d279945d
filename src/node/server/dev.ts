/**
 * `npm run dev`: the API server as `npm start` runs it (same variables, without building the web
 * app), and Vite's dev server with hot module replacement for the web app, from the sources.
 * Vite proxies /api, /healthz and sign-in links (`?token=`) to the API, so the app runs exactly
 * as it does served by the API: same origin, the same cookie, the same CSRF check (Vite keeps
 * the Host header). With INVESTIBOOK_API_URL, Vite proxies to a server already running instead.
 */
import { join } from 'node:path';
import { DEMO_WORKSPACE_ID } from '../demo/builder';
import { PROJECT_ROOT } from '../project';
import { main, serverEnv } from './main';

/** The paths Vite hands to the API: everything that is not the web app itself. */
export function devProxy(api: string) {
  const to = { target: api, changeOrigin: false, ws: false };
  return {
    '/api': to,
    '/healthz': to,
    // A sign-in link: the API sets the cookie and sends the browser back here without the token.
    '^/[^?]*\\?(?:[^#]*&)?token=': to,
  };
}

export async function dev(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = serverEnv(env);
  let vite: { close: () => Promise<void> } | null = null;
  let api = config.INVESTIBOOK_API_URL;
  let token: string | undefined = config.INVESTIBOOK_TOKEN;
  if (!api) {
    const running = await main(env, {
      build: false,
      // The API's own Open line would send the browser past Vite: the one below replaces it.
      log: (line) => {
        if (!line.startsWith('Open ')) console.log(line);
      },
      onStop: async () => vite?.close(),
    });
    api = new URL(running.url).origin;
    token = running.token;
  }
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: join(PROJECT_ROOT, 'vite.config.ts'),
    root: PROJECT_ROOT,
    mode: 'development',
    server: {
      host: config.HOST ?? '127.0.0.1',
      port: config.INVESTIBOOK_DEV_PORT,
      strictPort: true,
      proxy: devProxy(api),
    },
  });
  vite = server;
  await server.listen();
  const address = server.httpServer?.address();
  const port = typeof address === 'object' && address ? address.port : config.INVESTIBOOK_DEV_PORT;
  const host = config.HOST ?? '127.0.0.1';
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  console.log(`API at ${api}; the web app with hot reload at ${origin}`);
  const url = `${origin}/w/${DEMO_WORKSPACE_ID}`;
  console.log(token ? `Open ${url}?token=${token}` : `Open ${url} (sign in with ?token=YOUR_TOKEN)`);
  if (config.INVESTIBOOK_API_URL) {
    const stop = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
}
