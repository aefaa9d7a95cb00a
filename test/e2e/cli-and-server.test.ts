import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../database.ts';
import {
  MANY_PROCESSES,
  processEnv,
  type Result,
  runCli,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * What a new operator does, with real processes: create an account and credentials with the
 * CLI, start the server on the same storage, and read currencies with the new key.
 */

const source = inject('testDatabase');
// The CLI and server on the embedded database never see DATABASE_URL (processEnv drops it), so
// they run the same in the suite's Postgres and PGlite runs: CI, which always has the PGlite
// run, tests them there, and the Postgres run tests them on Postgres.
const backend = source.kind;

async function freshPostgresUrl(cleanup: (() => Promise<void>)[]): Promise<string> {
  if (source.kind !== 'postgres') throw new Error('no Postgres');
  const database = await emptyPostgresDatabase();
  cleanup.push(database.drop);
  return database.url;
}

/** Three of the well-known development wallets (their keys are public). */
const WALLET_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const WALLET_2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const WALLET_3 = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

/** What each step of a list resolves to, in order. */
type Outcomes<T extends readonly (() => Promise<unknown>)[]> = {
  -readonly [K in keyof T]: Awaited<ReturnType<T[K]>>;
};

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe(`CLI and server on ${backend}`, MANY_PROCESSES, () => {
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess | undefined;
  let account: { accountId: string; apiKey: string };
  let notBound: string;
  let boundClientId: string;

  const cli = (args: readonly string[]) => runCli(args, env);

  /**
   * Steps that do not depend on each other: at once on Postgres; one after another on the
   * embedded database, which one process owns at a time.
   */
  async function independent<const T extends readonly (() => Promise<unknown>)[]>(
    steps: T,
  ): Promise<Outcomes<T>> {
    if (backend === 'postgres')
      return (await Promise.all(steps.map((step) => step()))) as Outcomes<T>;
    const outcomes: unknown[] = [];
    for (const step of steps) outcomes.push(await step());
    return outcomes as Outcomes<T>;
  }

  it('creates an account and prints its API key once, as JSON', async () => {
    env = processEnv();
    if (backend === 'postgres') env.DATABASE_URL = await freshPostgresUrl(cleanup);
    const migrate = await runCli(['migrate', '--json'], env);
    expect(migrate.stderr).toBe('');
    expect(JSON.parse(migrate.stdout)).toEqual({ migrated: true });

    const created = await runCli(['account', 'create', '--name', 'Acme', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    account = JSON.parse(created.stdout);
    expect(Object.keys(account)).toEqual(['accountId', 'apiKey']);
    expect(account.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('issues API keys, client IDs and orchestrators, and refuses bad input', async () => {
    const [[key, client, orchestrator, noAccount, badDomain], noName] = await Promise.all([
      independent([
        () => cli(['api-key', 'create', '--account', account.accountId, '--json']),
        () =>
          cli([
            'client-id',
            'create',
            '--account',
            account.accountId,
            '--domain',
            'https://shop.example',
            '--json',
          ]),
        () => cli(['orchestrator', 'create', '--name', 'Platform', '--json']),
        () => cli(['api-key', 'create', '--account', 'nope', '--json']),
        () =>
          cli([
            'client-id',
            'create',
            '--account',
            account.accountId,
            '--domain',
            'http://shop.example',
          ]),
      ]),
      // A usage error opens nothing: it runs alongside whatever holds the database.
      cli(['account', 'create']),
    ]);
    expect(key.code, key.stderr).toBe(0);
    expect(Object.keys(JSON.parse(key.stdout))).toEqual(['apiKey']);

    expect(client.code, client.stderr).toBe(0);
    expect(JSON.parse(client.stdout).clientId).toMatch(/^cli_[A-Za-z0-9_-]{32}$/);

    expect(orchestrator.code, orchestrator.stderr).toBe(0);
    const parsed = JSON.parse(orchestrator.stdout);
    expect(Object.keys(parsed)).toEqual(['orchestratorId', 'orchestratorKey']);
    expect(parsed.orchestratorKey).toMatch(/^orc_/);

    expect(noAccount.code).toBe(1);
    expect(noAccount.stderr.trim()).toBe('payreq: no account nope');
    expect(badDomain.code).toBe(1);
    expect(badDomain.stderr).toContain('allowedDomains[0] must use https');
    expect(noName.code).toBe(1);
    expect(noName.stderr.trim()).toBe('payreq: --name is required');
  });

  it('binds a client ID with --bind, or refuses and creates nothing', async () => {
    const destination = async (accountId: string, address: string, currency: string) => {
      const result = await cli([
        'destination',
        'create',
        '--account',
        accountId,
        '--address',
        address,
        '--currency',
        currency,
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { destinationId: string; replaced?: string };
    };
    const created = (result: Result) => {
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const [, foreign, { replaced, replacing }] = await independent([
      async () => {
        const payTo = (await destination(account.accountId, WALLET_1, 'USDC-base')).destinationId;
        const bound = await cli([
          'client-id',
          'create',
          '--account',
          account.accountId,
          '--bind',
          payTo,
          '--json',
        ]);
        boundClientId = created(bound).clientId;
      },
      async () => {
        const other = created(await cli(['account', 'create', '--name', 'Other', '--json']));
        return (await destination(other.accountId, WALLET_3, 'USDC-base')).destinationId;
      },
      // The wallet's USDT destination replaces its USDC one, which goes inactive.
      async () => {
        const replaced = await destination(account.accountId, WALLET_2, 'USDC-base');
        return { replaced, replacing: await destination(account.accountId, WALLET_2, 'USDT-base') };
      },
    ]);
    expect(replaced.replaced).toBeUndefined();
    notBound = replacing.destinationId;
    // The CLI says so, rather than replace it silently.
    expect(replacing.replaced).toBe(replaced.destinationId);
    const refusals = [
      [foreign, '--bind is not a payee destination of this account'],
      [replaced.destinationId, '--bind is inactive; bind an active payee destination'],
      ['0x1234', '--bind is not a valid destination ID'],
    ] as const;
    const refused = await independent(
      refusals.map(
        ([bind]) =>
          () =>
            cli(['client-id', 'create', '--account', account.accountId, '--bind', bind, '--json']),
      ),
    );
    for (const [index, [, message]] of refusals.entries()) {
      const result = refused[index];
      expect(result?.code).toBe(1);
      expect(result?.stdout).toBe('');
      expect(result?.stderr.trim()).toBe(`payreq: Validation failed: ${message}`);
    }
  });

  it('serves the account: its key reads GET /v2/currencies', async () => {
    server = await startServer(env);
    expect(server.output()).toContain('request API http://localhost:');
    const res = await fetch(`${server.url}/v2/currencies?network=base&symbol=USDC&firstOnly=true`, {
      headers: { 'x-api-key': account.apiKey },
    });
    expect(res.status).toBe(200);
    // The server wires the rate limiter in: an API key's budget, counted in this process.
    expect(res.headers.get('ratelimit-limit')).toBe('1200');
    expect(res.headers.get('ratelimit-remaining')).toBe('1199');
    expect(await res.json()).toMatchObject({ id: 'USDC-base', decimals: 6, chainId: 8453 });
    expect(server.output()).not.toContain(account.apiKey);
  });

  it('made the client ID --bind named pay there, and no client ID of a refused --bind', async () => {
    const create = (body: unknown) =>
      fetch(`${server?.url}/v2/secure-payments`, {
        method: 'POST',
        headers: { 'x-client-id': boundClientId, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const paysBound = await create({ requests: [{ amount: '1' }] });
    expect(paysBound.status, await paysBound.clone().text()).toBe(201);
    // Another active destination of the same account may be named, as the reference allows a
    // client ID not linked to an orchestrator (docs/guides/credentials.md).
    const elsewhere = await create({ requests: [{ destinationId: notBound, amount: '1' }] });
    expect(elsewhere.status, await elsewhere.clone().text()).toBe(201);

    // The two made above (one with a domain, one bound); none for the refused ones.
    const list = await fetch(`${server?.url}/v2/client-ids`, {
      headers: { 'x-api-key': account.apiKey },
    });
    const ids = ((await list.json()) as { clientId: string }[]).map((row) => row.clientId);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(boundClientId);
  });

  it.runIf(backend === 'pglite')(
    'keeps the CLI off the embedded database while the server runs',
    async () => {
      // Usage needs no database: it answers while the server holds it.
      const [busy, help, unknown] = await Promise.all([
        cli(['account', 'create', '--name', 'Second']),
        cli(['--help']),
        cli(['acount', 'create']),
      ]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/is in use by process \d+/);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: payreq <command>/);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^payreq: unknown command "acount create"\n\nUsage: payreq /);
    },
  );

  it('stops gracefully on SIGTERM and releases the database', async () => {
    const code = await server?.stop('SIGTERM');
    expect(code).toBe(0);
    expect(server?.output()).toContain('stopped');
    expect(existsSync(join(env.DATA_DIR ?? '', 'pgdata.lock'))).toBe(false);
    const again = await runCli(
      ['api-key', 'create', '--account', account.accountId, '--json'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('bad configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ RPC_URL_POLYGON: 'https://x' }, 'RPC_URL_POLYGON'],
  ])('ends the process with one line naming the variable (%j)', async (extra, variable) => {
    const result = await runCli(['serve'], { ...processEnv(), ...extra });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^payreq: invalid configuration: ${variable} `));
  });
});
