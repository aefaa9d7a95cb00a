import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files whose subject is the same whatever database the suite runs on. CI runs the suite
 * twice, on Postgres and then on the embedded PGlite (.ci/run); its second pass sets
 * `PAYREQ_SECOND_PASS=1` and leaves these out, as they would only repeat the first.
 */
const SAME_ON_EVERY_DATABASE = [
  // Their payreq processes run on the embedded database in either pass (processEnv drops
  // DATABASE_URL), and they use no other.
  'test/e2e/sandbox.test.ts',
  'test/e2e/sandbox-pay-page.test.ts',
  'test/e2e/sandbox-crosschain.test.ts',
  'test/e2e/sandbox-pay-page-crosschain.test.ts',
  'test/e2e/sandbox-commerce.test.ts',
  'test/e2e/cli-usage.test.ts',
  // The commerce contracts driven from wallets on a local chain: no database at all.
  'test/e2e/commerce-contracts.test.ts',
  // An EVM node's answers through a garbling proxy: no database either.
  'src/detection/evm-source.test.ts',
  'src/payments/sender.test.ts',
  'test/e2e/rpc-config.test.ts',
  // Its process runs on a Postgres server the test starts itself.
  'test/e2e/fault-postgres-restart.test.ts',
  'test/e2e/server-bundle.test.ts',
  // What a browser does with the pay page, over the HTTP API: the database behind that API is
  // the subject of every other test (and sandbox-pay-page drives the page on PGlite).
  'test/e2e/pay-page-*.test.ts',
  'test/e2e/link-intent-page.test.ts',
  'test/e2e/dashboard-*.test.ts',
  'test/e2e/cors-browser.test.ts',
  // The typed client's build and README programs, its type test and its verifier: the client
  // against each database is packages/client/test/client.test.ts.
  'packages/client/test/package.test.ts',
  'packages/client/test/type-probe.test.ts',
  'packages/client/test/verify.test.ts',
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude:
      process.env.PAYREQ_SECOND_PASS === '1'
        ? [...configDefaults.exclude, ...SAME_ON_EVERY_DATABASE]
        : configDefaults.exclude,
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    // Test files share a worker's module cache instead of each importing the app afresh: that
    // import was a quarter of the suite's time. Safe while no test mocks modules, stubs globals
    // or env, or fakes timers (none does), and each file closes what it opens.
    isolate: false,
    // Two files at a time even on two cores (vitest's default is one fewer than the cores): a
    // file mostly waits on its chains, servers and browser (the suite kept one core about half
    // busy), and every file has its own database. On the CI machine the Postgres pass took
    // 1312 s with one worker and 830 s with two.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A test that needs a retry to pass is a bug to fix, not to hide.
    retry: 0,
  },
});
