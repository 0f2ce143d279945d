/** Renders the whole app at /w/demo with a fresh QueryClient (no retries), as a page load would. */
import { QueryClient } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect } from 'vitest';
import { App } from '../../src/app/app';

export function renderApp() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const user = userEvent.setup();
  const view = render(<App queryClient={queryClient} />);
  return { ...view, user, queryClient };
}

export async function waitForHistory() {
  await screen.findByText(/Stopped\. Summary: cause found/);
}

export const composer = () => screen.getByRole('combobox', { name: 'Message' });

/** Web storage, cookies and IndexedDB hold nothing. */
export async function expectNothingStored() {
  expect(localStorage.length).toBe(0);
  expect(sessionStorage.length).toBe(0);
  expect(document.cookie).toBe('');
  expect(await indexedDB.databases()).toEqual([]);
}

/** The app, the history loaded, /debug run: its report region (the first in a file loads the view's lazy chunk: waited for as long as it takes, test/web/setup.ts). */
export async function openReport() {
  const app = renderApp();
  await waitForHistory();
  await app.user.type(composer(), '/debug{Enter}');
  const region = await screen.findByRole('region', { name: /^Context breakdown/ });
  return { ...app, region };
}
