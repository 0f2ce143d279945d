/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web app is built from index.html → src/app/main.tsx. Node-only code (src/node) is never
// imported by it; ESLint enforces that boundary. Tests run as two Vitest projects: the web app
// under jsdom with MSW, and the server, engine and CLI under Node.
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
          // Waits are on conditions (test/web/setup.ts): only a hang runs into this.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/node/**/*.test.ts'],
          globalSetup: ['test/support/postgres-global.ts', 'test/support/build-global.ts'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          // build-global: the CLI processes some run are the compiled build, fresh; browser-global:
          // one Chromium for every file (each connects to it).
          globalSetup: [
            'test/support/postgres-global.ts',
            'test/support/build-global.ts',
            'test/support/browser-global.ts',
          ],
          testTimeout: 120_000,
          hookTimeout: 180_000,
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
