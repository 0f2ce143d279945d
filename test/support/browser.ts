/** Debian's Chromium driven by playwright-core: the flags this machine and CI need. */
import { chromium, type Browser, type BrowserServer } from 'playwright-core';
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
