import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../database.ts';
import { MANY_PROCESSES, processEnv, runCli, type ServerProcess, startServer } from '../process.ts';

/**
 * Two real server processes on one Postgres and one Redis, configured only through the
 * environment as an operator would: a client ID + IP has one budget between them, and a key
 * revoked through the CLI is refused by both at once, not after their cache lifetime.
 */

const source = inject('testDatabase');
const REDIS_URL = 'redis://127.0.0.1:6379/14';

describe.runIf(source.kind === 'postgres')('two servers sharing Redis', MANY_PROCESSES, () => {
  const servers: ServerProcess[] = [];
  const cleanup: (() => Promise<void>)[] = [];
  let clientId: string;
  let accountId: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const database = await emptyPostgresDatabase();
    cleanup.push(database.drop);
    env = processEnv({ DATABASE_URL: database.url, REDIS_URL, WORKERS: 'false' });
    expect((await runCli(['migrate', '--json'], env)).code).toBe(0);
    const account = await runCli(['account', 'create', '--name', 'Shop', '--json'], env);
    expect(account.code, account.stderr).toBe(0);
    ({ accountId } = JSON.parse(account.stdout) as { accountId: string });
    const created = await runCli(['client-id', 'create', '--account', accountId, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    ({ clientId } = JSON.parse(created.stdout) as { clientId: string });
    for (let i = 0; i < 2; i++) servers.push(await startServer(env));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const step of cleanup.reverse()) await step();
  });

  it('refuses exactly the 301st request of a minute, whichever server each one reached', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 301; i++) {
      const server = servers[i % 2];
      if (!server) throw new Error('no server');
      last = await fetch(`${server.url}/v2/currencies?id=USDC-base`, {
        headers: { 'x-client-id': clientId },
      });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 300).every((status) => status === 200)).toBe(true);
    expect(statuses[300]).toBe(429);
    expect(last?.headers.get('ratelimit-limit')).toBe('300');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last?.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
  });

  it('refuses a key revoked through the CLI on both servers at once', async () => {
    const issued = await runCli(['api-key', 'create', '--account', accountId, '--json'], env);
    expect(issued.code, issued.stderr).toBe(0);
    const { apiKey } = JSON.parse(issued.stdout) as { apiKey: string };
    const status = async (server: ServerProcess) =>
      (
        await fetch(`${server.url}/v2/currencies?id=USDC-base`, {
          headers: { 'x-api-key': apiKey },
        })
      ).status;
    // Each server now holds the key for CREDENTIAL_CACHE_MS (5 s) unless told otherwise.
    for (const server of servers) expect(await status(server)).toBe(200);
    const revoked = await runCli(['api-key', 'revoke', '--key', apiKey, '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const server of servers) {
      await expect.poll(() => status(server), { timeout: 1_500, interval: 50 }).toBe(401);
    }
  });
});
