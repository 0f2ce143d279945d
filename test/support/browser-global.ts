/**
 * Vitest global setup of the browser projects: one Chromium for the whole project, launched once
 * as a server; each test file connects to it (`launchChromium` in ./browser.ts) and gets its own
 * contexts, so files stay apart without each paying for a browser start.
 */
import type { TestProject } from 'vitest/node';
import { launchChromiumServer } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The WebSocket endpoint of the project's one Chromium. */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await launchChromiumServer();
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
