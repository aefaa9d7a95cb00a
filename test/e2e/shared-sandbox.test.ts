import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sandboxAddresses, sandboxWallets } from '../../src/sandbox/addresses.ts';
import { emptyPostgresDatabase } from '../database.ts';
import {
  createDestinationByCli,
  processEnv,
  runCli,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * Several `payreq serve` processes on one Postgres run one sandbox chain between them: the
 * first runs it, the second reaches it through the first's JSON-RPC (its own /sandbox/rpc
 * passes calls on), so a link made on one and paid through the other completes on both. When
 * the owner stops, the other takes over with a fresh chain, on which new links complete too.
 */

const source = inject('testDatabase');
const SLOW = { timeout: 180_000 };

const payee = sandboxWallets()[1]?.address ?? '';
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(`${url}/sandbox/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { message: string } };
}

async function usdcBalance(url: string): Promise<bigint> {
  const data = `0x70a08231${payee.slice(2).toLowerCase().padStart(64, '0')}`;
  const answer = await rpc(url, 'eth_call', [{ to: sandboxAddresses().usdc, data }, 'latest']);
  return BigInt(String(answer.result ?? '0x0'));
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(source.kind === 'postgres')(
  'one sandbox chain for processes on one Postgres',
  () => {
    let env: NodeJS.ProcessEnv;
    let owner: ServerProcess;
    let other: ServerProcess;
    let apiKey: string;
    let destinationId: string;
    let firstToken: string;
    let firstPayment: string;

    const createLink = async (server: ServerProcess, amount: string) => {
      const created = await fetch(`${server.url}/v2/secure-payments`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ requests: [{ destinationId, amount }] }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      return ((await created.json()) as { token: string }).token;
    };
    const linkStatus = async (server: ServerProcess, token: string) =>
      (
        await fetch(`${server.url}/v2/secure-payments/${token}`, {
          headers: { 'x-api-key': apiKey },
        })
      ).status;
    const pay = async (token: string, through: ServerProcess) => {
      const paid = await runCli(
        [
          'sandbox',
          'pay',
          token,
          '--wallet',
          '2',
          '--api-key',
          apiKey,
          '--url',
          through.url,
          '--json',
        ],
        env,
      );
      expect(paid.code, paid.stderr).toBe(0);
      return JSON.parse(paid.stdout).transactions as string[];
    };

    it('runs the chain in one process; the other runs none and uses its RPC', SLOW, async () => {
      const database = await emptyPostgresDatabase();
      cleanup.push(database.drop);
      env = processEnv({
        DATABASE_URL: database.url,
        SANDBOX: 'true',
        // Blocks come only from what the test sends, so it can count them.
        SANDBOX_IDLE_BLOCK_MS: '0',
        SECRET_KEY: randomBytes(32).toString('hex'),
        INDEXER_POLL_MS: '100',
      });
      owner = await startServer(env, { timeoutMs: 90_000 });
      cleanup.push(() => owner.stop());
      expect(owner.output()).toContain('sandbox chain ready');
      other = await startServer(env, { timeoutMs: 90_000 });
      cleanup.push(() => other.stop());
      expect(other.output()).toContain('sandbox chain run by another process');
      expect(other.output()).not.toContain('sandbox chain ready');

      // One chain between them: a block mined through one is the other's new head.
      const head = BigInt(String((await rpc(owner.url, 'eth_blockNumber', [])).result));
      expect((await rpc(other.url, 'evm_mine', [])).error).toBeUndefined();
      expect(BigInt(String((await rpc(owner.url, 'eth_blockNumber', [])).result))).toBe(head + 1n);
      expect(BigInt(String((await rpc(other.url, 'eth_blockNumber', [])).result))).toBe(head + 1n);
    });

    it(
      'pays a link made on one process through the other, and both see it complete',
      SLOW,
      async () => {
        const account = await runCli(['account', 'create', '--name', 'Shop', '--json'], env);
        expect(account.code, account.stderr).toBe(0);
        const { accountId, apiKey: key } = JSON.parse(account.stdout);
        apiKey = key;
        destinationId = await createDestinationByCli(env, {
          accountId,
          address: payee,
          currency: 'USDC-sandbox',
        });

        firstToken = await createLink(owner, '25');
        const before = await usdcBalance(owner.url);
        // Calldata from the other process (its reads go to the owner's chain), and the
        // transactions sent to the other's /sandbox/rpc, which passes them on.
        const transactions = await pay(firstToken, other);
        expect(transactions).toHaveLength(2);
        firstPayment = transactions[1] ?? '';
        expect((await usdcBalance(owner.url)) - before).toBe(25_000_000n);
        expect(await usdcBalance(other.url)).toBe(await usdcBalance(owner.url));

        await until(
          'the link completes',
          async () => (await linkStatus(owner, firstToken)) === 409,
        );
        expect(await linkStatus(other, firstToken)).toBe(409);
      },
    );

    it(
      'hands the chain to the other process when its owner stops: a fresh chain, links kept',
      SLOW,
      async () => {
        expect(await owner.stop()).toBe(0);
        await until('the other process takes the chain over', async () =>
          other.output().includes('sandbox chain ready'),
        );
        // A fresh chain: the payment sent to the old one is not on it...
        expect(
          (await rpc(other.url, 'eth_getTransactionReceipt', [firstPayment])).result,
        ).toBeNull();
        // ...and what the database knows of the old chain stays: the link is still completed.
        expect(await linkStatus(other, firstToken)).toBe(409);

        const token = await createLink(other, '7');
        const before = await usdcBalance(other.url);
        await pay(token, other);
        expect((await usdcBalance(other.url)) - before).toBe(7_000_000n);
        await until('the new link completes', async () => (await linkStatus(other, token)) === 409);
        expect(await linkStatus(other, firstToken)).toBe(409);
      },
    );
  },
);
