import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { requests, server } from './msw/server';

vi.mock('zustand');

// findBy… and waitFor wait for their condition, not for a time: a lazily loaded view on a slow
// machine takes what it takes, and only a hang fails (with the DOM printed, a little before the
// test's own timeout in vite.config.ts). What is fast enough is measured by npm run bench.
configure({ asyncUtilTimeout: 25_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  requests.length = 0;
  window.history.replaceState(null, '', '/w/demo');
});
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  server.resetHandlers();
  localStorage.clear();
  sessionStorage.clear();
});
afterAll(() => server.close());
