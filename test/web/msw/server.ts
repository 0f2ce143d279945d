import { setupServer } from 'msw/node';
import { handlers } from './handlers';

export const server = setupServer(...handlers);

/** Every request the app starts, in order (MSW life-cycle events). */
export const requests: { method: string; path: string }[] = [];
server.events.on('request:start', ({ request }) => {
  const url = new URL(request.url);
  requests.push({ method: request.method, path: `${url.pathname}${url.search}` });
});
