import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../database.ts';
import {
  freePort,
  processEnv,
  REFUSING_URL,
  run,
  runCli,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * No silent half-start: a service started with the sandbox on either runs it or does not
 * start, with one line naming the cause and the fix; so does one whose port is taken; a
 * network whose RPC does not answer keeps the process serving but not ready.
 *
 * The EVM module missing is made real: a resolve hook, loaded into the server's Node with
 * NODE_OPTIONS, refuses the platform builds of `@nomicfoundation/edr`
 * (`@nomicfoundation/edr-linux-x64-gnu` and its siblings), as when npm skipped them; EDR's own
 * loader then fails as it does on such an install, and payreq meets that failure.
 */
const NO_NATIVE_EVM = join(mkdtempSync(join(tmpdir(), 'payreq-no-edr-')), 'no-native-evm.mjs');
writeFileSync(
  NO_NATIVE_EVM,
  `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (/^@nomicfoundation\\/edr-/.test(specifier)) {
      const error = new Error(\`Cannot find module '\${specifier}'\`);
      error.code = 'MODULE_NOT_FOUND';
      throw error;
    }
    return next(specifier, context);
  },
});
`,
);

const withoutNativeEvm = (extra: Record<string, string> = {}) =>
  processEnv(
    {
      SANDBOX: 'true',
      HOST: '127.0.0.1',
      NODE_OPTIONS: `--import=${NO_NATIVE_EVM}`,
      ...extra,
    },
    { migrated: true },
  );

const EVM_MISSING =
  /^payreq: the sandbox cannot start: its EVM module \(@nomicfoundation\/edr\) has no native build installed for this machine \([a-z0-9]+-[a-z0-9]+, Node v24\.[0-9.]+\); run `PATH=\$PWD\/node_modules\/\.bin:\$PATH npm install` so that npm installs it on Node 24, or set SANDBOX=false to run without the sandbox$/;

/**
 * A start that should fail but serves is killed by then (the test fails on its code, null),
 * before the test's own time runs out (`ENDING`).
 */
const ENDS = { timeoutMs: 25_000 };
const ENDING = { timeout: 40_000 };

/** The lines of `text` that payreq wrote as its own (`payreq: …`), not JSON logs or npm's. */
const payreqLines = (text: string) => text.split('\n').filter((line) => line.startsWith('payreq:'));

let blocker: Server | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
});

describe('the sandbox on, its EVM module missing', () => {
  it('`payreq serve` exits 1 with one line naming the module and the fix', ENDING, async () => {
    const result = await runCli(
      ['serve'],
      withoutNativeEvm({ PORT: String(await freePort()) }),
      ENDS,
    );
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr.trim()).toMatch(EVM_MISSING);
    expect(result.stdout).not.toContain('payreq listening');
  });

  it('`npm start` (the server bundle, `node dist/server/cli.js serve`) exits non-zero with the same line', async () => {
    const result = await run(
      'npm',
      ['start'],
      withoutNativeEvm({ PORT: String(await freePort()) }),
      { timeoutMs: 150_000 },
    );
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    const lines = payreqLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(EVM_MISSING);
    expect(result.stdout).not.toContain('payreq listening');
  }, 180_000);

  // On Postgres every process loads the EVM at start, even one that leaves the chain to another.
  it.runIf(inject('testDatabase').kind === 'postgres')(
    '`payreq serve` on Postgres exits 1 with the same line',
    ENDING,
    async () => {
      const database = await emptyPostgresDatabase();
      try {
        const result = await runCli(
          ['serve'],
          withoutNativeEvm({ PORT: String(await freePort()), DATABASE_URL: database.url }),
          ENDS,
        );
        expect(result.code, result.stdout).toBe(1);
        expect(result.stderr.trim()).toMatch(EVM_MISSING);
      } finally {
        await database.drop();
      }
    },
  );

  it('starts without the sandbox when SANDBOX=false says so', async () => {
    server = await startServer(withoutNativeEvm({ SANDBOX: 'false' }));
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
    server = undefined;
  });
});

describe('the port taken', () => {
  it('`payreq serve` exits 1 with one line naming the port and the fix', ENDING, async () => {
    blocker = createServer();
    const port = await new Promise<number>((resolve) => {
      blocker?.listen(0, '127.0.0.1', () => {
        const address = blocker?.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    const result = await runCli(
      ['serve'],
      processEnv({ PORT: String(port), HOST: '127.0.0.1' }, { migrated: true }),
      ENDS,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `payreq: port ${port} on 127.0.0.1 is in use (another payreq, or another server); stop it, or set PORT to a free port`,
    );
  });
});

describe('a network whose RPC does not answer at start', () => {
  it('serves, with /readyz 503 naming the network and why, and says so once in the log', async () => {
    server = await startServer(processEnv({ RPC_URL_BASE: REFUSING_URL }, { migrated: true }));
    const url = server.url;
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${url}/readyz`)).json()) as { networks?: unknown }).networks,
      )
      .toEqual([
        {
          network: 'base',
          status: 'unreachable',
          reason: 'its RPC did not answer (connection refused)',
          checkedAt: expect.any(String),
        },
      ]);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      statusCode: 503,
      code: 'networks_not_ready',
      message: 'Not ready: network base: its RPC did not answer (connection refused)',
      status: 'not_ready',
    });
    // The rest serves meanwhile.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/v2/currencies?id=USDC-base`)).status).toBe(200);
    // Asked again every few seconds, said once.
    const checkedAt = async () =>
      ((await (await fetch(`${url}/readyz`)).json()) as { networks: { checkedAt: string }[] })
        .networks[0]?.checkedAt;
    const first = await checkedAt();
    await expect.poll(checkedAt, { timeout: 15_000 }).not.toBe(first);
    const said = server
      .output()
      .split('\n')
      .filter((line) => line.includes('network base (RPC_URL_BASE)'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(
      'its RPC did not answer (connection refused); serving meanwhile, /readyz answers 503 until it answers',
    );
  });
});
