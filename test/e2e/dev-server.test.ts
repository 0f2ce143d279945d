/**
 * `npm run dev` as a real process: the API server and Vite's dev server with hot reload. Vite
 * serves the app from the sources (with its HMR client) and hands /api, /healthz and sign-in
 * links to the API, so the browser signs in, reads and writes through it as on `npm start`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage } from '../support/browser';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'dev-token';
let dir: string;
let server: ServerProcess;
let browser: Browser | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-dev-'));
  server = await startServerProcess(join(dir, 'investibook.db'), TOKEN, { INVESTIBOOK_DEV_PORT: '0' }, 'dev.js');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run dev', () => {
  it('serves the app from the sources with the HMR client, and proxies the API', async () => {
    expect(server.url).toBe(`${server.origin}/w/demo?token=${TOKEN}`);
    const page = await fetch(`${server.origin}/w/demo`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/@vite/client');
    expect(html).toContain('/src/app/main.tsx');
    expect((await fetch(`${server.origin}/src/app/main.tsx`)).status).toBe(200);

    expect(await (await fetch(`${server.origin}/healthz`)).json()).toMatchObject({ status: 'ok' });
    const workspace = await fetch(`${server.origin}/api/workspace/demo`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(workspace.status).toBe(200);
    expect(await workspace.json()).toMatchObject({ id: 'demo' });
    expect(workspace.headers.get('x-request-id')).toBeTruthy();
  });

  it('signs a browser in through Vite, and its cookie writes pass the same-origin check', async () => {
    const signIn = await fetch(server.url, { redirect: 'manual' });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get('location')).toBe('/w/demo');
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const post = (origin: string) =>
      fetch(`${server.origin}/api/workspace/demo/messages`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: origin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'from the dev server' }),
      });
    expect((await post(server.origin)).status).toBe(201);
    expect((await post('http://127.0.0.1:9')).status).toBe(403);
  });

  it('runs in Chromium: the chat renders and the HMR socket connects', async () => {
    browser = await launchChromium();
    const page = await newPage(browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.goto(server.url);
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('combobox', { name: 'Message' }).waitFor();
    await expect.poll(() => sockets.some((url) => url.startsWith(server.origin.replace('http', 'ws')))).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
