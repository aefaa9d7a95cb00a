import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    // Test files share a worker's module cache instead of each importing the app afresh: that
    // import was a quarter of the suite's time. Safe while no test mocks modules, stubs globals
    // or env, or fakes timers (none does), and each file closes what it opens.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A test that needs a retry to pass is a bug to fix, not to hide.
    retry: 0,
  },
});
