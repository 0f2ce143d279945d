/** Debian's Chromium driven by playwright-core: the flags this machine and CI need. */
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type BrowserServer,
  type Page,
} from 'playwright-core';
import { inject } from 'vitest';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const options = {
  executablePath: CHROMIUM_PATH,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/** The project's one Chromium (test/support/browser-global.ts). */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(options);
}

/**
 * A browser for one test file: a connection to the project's Chromium where its global setup
 * started one (closing it closes only this file's contexts), else a Chromium of its own — also
 * outside Vitest (npm run screenshots), where there is nothing to inject.
 */
export function launchChromium(): Promise<Browser> {
  const endpoint = process.env.VITEST ? inject('chromiumEndpoint') : undefined;
  return endpoint ? chromium.connect(endpoint) : chromium.launch(options);
}

/**
 * A context whose waits have no bound of their own: every wait in these tests is on a condition,
 * and Playwright's default 30 s per wait is a clock that a loaded shared machine can outrun. A
 * hang still ends, at the test's timeout (vite.config.ts).
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(0);
  return context;
}

/** A page in a context of its own (`newContext`): close it with `page.context().close()`. */
export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  return (await newContext(browser, options)).newPage();
}
