/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web app is built from index.html → src/app/main.tsx. Node-only code (src/node) is never
// imported by it; ESLint enforces that boundary. Tests run as four Vitest projects (docs/testing.md).
//
// How they share the machine: the e2e and agent files each drive servers, agents and a browser, so
// each of those projects runs its files one at a time (fileParallelism: false). Vitest puts every
// such project in one last group, after all the others, one file at a time across all of them
// (vitest 4.1, groupSpecs in its pool) — and on two cores its default is one worker anyway. So
// `npm test` runs two Vitest processes at once (`test:lanes` in package.json): the agent project in
// one, web, node and e2e in the other. Each lane keeps its heavy files serial; the two lanes
// together use two cores. A new test file joins its project's lane by its folder.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'web',
          environment: 'jsdom',
          include: ['test/web/**/*.test.{ts,tsx}'],
          setupFiles: ['test/web/setup.ts'],
          // Waits are on conditions (test/web/setup.ts): only a hang runs into this. Generous: on a
          // shared, loaded machine a test takes many times what it takes on a quiet one.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
          globalSetup: ['test/support/postgres-global.ts', 'test/support/build-global.ts'],
          // Every file in one worker with one module cache: each file loading the product's
          // modules afresh (a new process per file) was most of this project's CPU. A file that
          // mocks a module, or changes process-wide state (process.env, the umask), puts it back
          // when it ends (public-exports.test.ts, bad-files.test.ts, owner-only.test.ts).
          isolate: false,
          // Only a hang runs into these (see web): a loaded machine stretches every step.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          // build-global: the CLI processes some run are the compiled build, fresh; browser-global:
          // one Chromium for every file (each connects to it); demo-server-global: one demo server
          // for every file that only reads it.
          globalSetup: [
            'test/support/postgres-global.ts',
            'test/support/build-global.ts',
            'test/support/browser-global.ts',
            'test/support/demo-server-global.ts',
          ],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // expect.poll waits on a condition: no 1 s bound of its own on a loaded machine (the test's timeout ends a hang).
          expect: { poll: { timeout: 120_000 } },
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          // The live agent: the real OpenCode runtime (installed on first use) on the scripted model.
          name: 'agent',
          environment: 'node',
          include: ['test/agent/**/*.test.ts'],
          globalSetup: ['test/support/agent-global.ts', 'test/support/browser-global.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
