/** The trials' own tests (npm run cost-of-change runs them in a worktree with the trial applied). */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/trials/**/*.test.{ts,tsx}'], environment: 'node', testTimeout: 60_000 },
});
