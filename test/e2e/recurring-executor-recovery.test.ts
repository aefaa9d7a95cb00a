import { eq } from 'drizzle-orm';
import { type Address, createPublicClient, custom, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recurringExecutions } from '../../src/db/schema.ts';
import { CLAIM_LEASE_MS } from '../../src/payouts/recurring/executions.ts';
import { sandboxRelayer } from '../../src/sandbox/addresses.ts';
import { accountOf } from '../chain.ts';
import {
  at,
  closeWorld,
  createSchedule,
  kinds,
  retireSchedules,
  startWorld,
  usdcBalance,
  type World,
} from '../recurring-world.ts';

/**
 * An index is paid at most once, and its outcome recorded, whatever happens to the executor
 * that sends it: killed right after broadcasting (the next executor finds the transaction
 * mined), killed between recording the hash and broadcasting (it sends again, once), left
 * with a transaction still pending, or cut off from the RPC before sending. A relayer too poor
 * to pay gas holds the payments back with a log line and a `/readyz` detail. Executors racing
 * on one Postgres: recurring-executor-postgres.test.ts.
 */

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 120_000);
afterAll(() => closeWorld(world));
beforeEach(() => retireSchedules(world));

const payee = () => accountOf(world.local.chain, 1).address;
const relayer = () => sandboxRelayer().address;
const nonceOf = (address: Address) =>
  world.local.chain.client.getTransactionCount({ address, blockTag: 'pending' });
const rpc = (method: string, params: unknown[] = []) =>
  world.local.chain.provider.request({ method, params });

/**
 * The base chain as a process sees it that dies at `eth_sendRawTransaction`: after the node
 * took the transaction, or before. Every call after that fails, so nothing more is recorded.
 */
function dyingClient(dies: 'after-broadcast' | 'before-broadcast'): PublicClient {
  let dead = false;
  const provider = world.local.chain.provider;
  return createPublicClient({
    chain: world.t.clients.evm('base').chain,
    transport: custom(
      {
        async request(args: { method: string; params?: unknown }) {
          if (dead) throw new Error('the executor process is gone');
          if (args.method === 'eth_sendRawTransaction') {
            dead = true;
            if (dies === 'after-broadcast') await provider.request(args);
            throw new Error('the executor process is gone');
          }
          return provider.request(args);
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
}

async function execution(scheduleId: string, index: number) {
  const [row] = await world.t.db
    .select()
    .from(recurringExecutions)
    .where(eq(recurringExecutions.recurringPayoutId, scheduleId));
  expect(row?.paymentIndex).toBe(index);
  return row;
}

describe('an executor that dies while paying', () => {
  it.each([
    ['after broadcasting: the next one finds it mined and sends nothing', 'after-broadcast', 2027],
    ['before broadcasting: the next one sends it, once', 'before-broadcast', 2028],
  ] as const)('%s', async (_, dies, year) => {
    await at(world, `${year}-01-01T00:00:00Z`);
    const schedule = await createSchedule(world, {
      payer: accountOf(world.local.chain, 2),
      payee: payee(),
      start: new Date(`${year}-02-01T00:00:00Z`),
    });
    await at(world, `${year}-02-01T00:00:00Z`);
    const nonce = await nonceOf(relayer());
    const before = await usdcBalance(world, payee());

    const doomed = world.spawn({ client: dyingClient(dies) });
    expect(kinds(await doomed.runOnce())).toEqual([[schedule.id, 1, 'retry']]);
    const recorded = await execution(schedule.id, 1);
    expect(recorded?.state).toBe('sent');
    const sentHash = recorded?.txHash as Hex;
    expect(sentHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Another process, while the dead one's lease runs: nothing to claim.
    const next = world.spawn();
    expect((await next.runOnce()).outcomes).toEqual([]);
    world.t.clock.advance(CLAIM_LEASE_MS + 1_000);
    const run = await next.runOnce();
    expect(kinds(run)).toEqual([[schedule.id, 1, 'succeeded']]);
    const paidWith = run.outcomes[0]?.txHash;
    // Before broadcasting, the same nonce and fees sign the very same transaction again (RFC
    // 6979 signatures are deterministic): either way the recorded hash is the one that paid.
    expect(paidWith).toBe(sentHash);

    // Paid once, by one transaction of the relayer, and recorded.
    expect((await usdcBalance(world, payee())) - before).toBe(10_000_000n);
    expect(await nonceOf(relayer())).toBe(nonce + 1);
    expect(await execution(schedule.id, 1)).toMatchObject({ state: 'succeeded', txHash: paidWith });
    expect((await next.runOnce()).outcomes).toEqual([]);
  });

  it('waits for a transaction still pending, and counts it once it is mined', async () => {
    await at(world, '2029-01-01T00:00:00Z');
    const schedule = await createSchedule(world, {
      payer: accountOf(world.local.chain, 3),
      payee: payee(),
      start: new Date('2029-02-01T00:00:00Z'),
    });
    await at(world, '2029-02-01T00:00:00Z');
    const before = await usdcBalance(world, payee());
    await rpc('evm_setAutomine', [false]);
    try {
      const first = world.spawn({ receiptTimeoutMs: 100 });
      const left = await first.runOnce();
      expect(kinds(left)).toEqual([[schedule.id, 1, 'pending']]);
      // Its lease runs out while the transaction waits in the pool: the next one waits too.
      world.t.clock.advance(CLAIM_LEASE_MS + 1_000);
      const second = world.spawn({ receiptTimeoutMs: 100 });
      expect(kinds(await second.runOnce())).toEqual([[schedule.id, 1, 'pending']]);
      await rpc('evm_mine');
      world.t.clock.advance(CLAIM_LEASE_MS + 1_000);
      const run = await second.runOnce();
      expect(run.outcomes).toEqual([
        { scheduleId: schedule.id, index: 1, kind: 'succeeded', txHash: left.outcomes[0]?.txHash },
      ]);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect((await usdcBalance(world, payee())) - before).toBe(10_000_000n);
  });
});

describe('an RPC that fails before anything is sent', () => {
  it('gives the index back untouched, and the next run pays it', async () => {
    await at(world, '2029-06-01T00:00:00Z');
    const schedule = await createSchedule(world, {
      payer: accountOf(world.local.chain, 3),
      payee: payee(),
      start: new Date('2029-07-01T00:00:00Z'),
    });
    await at(world, '2029-07-01T00:00:00Z');
    const nonce = await nonceOf(relayer());
    const provider = world.local.chain.provider;
    const flaky = createPublicClient({
      chain: world.t.clients.evm('base').chain,
      transport: custom(
        {
          async request(args: { method: string; params?: unknown }) {
            // The node is down for calls: no revert data, just a failed request.
            if (args.method === 'eth_call') throw new Error('connect ECONNREFUSED');
            return provider.request(args);
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
    expect(kinds(await world.spawn({ client: flaky }).runOnce())).toEqual([
      [schedule.id, 1, 'retry'],
    ]);
    expect(await execution(schedule.id, 1)).toMatchObject({ state: 'pending', txHash: null });
    expect(await nonceOf(relayer())).toBe(nonce);
    expect(kinds(await world.executor.runOnce())).toEqual([[schedule.id, 1, 'succeeded']]);
    expect(await nonceOf(relayer())).toBe(nonce + 1);
  });
});

describe('the relayer’s balance', () => {
  it('holds payments back with a log line and a /readyz detail while it cannot pay gas', async () => {
    await at(world, '2030-01-01T00:00:00Z');
    const schedule = await createSchedule(world, {
      payer: accountOf(world.local.chain, 4),
      payee: payee(),
      start: new Date('2030-02-01T00:00:00Z'),
    });
    await at(world, '2030-02-01T00:00:00Z');
    const funded = await world.local.chain.client.getBalance({ address: relayer() });
    await rpc('hardhat_setBalance', [relayer(), '0x3e8']);
    expect(await world.executor.runOnce()).toEqual({ leader: true, outcomes: [] });
    const ready = await world.t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      recurringRelayers: [
        {
          network: 'base',
          address: relayer(),
          status: 'low_balance',
          balance: '0.000000000000001',
          minimumBalance: expect.stringMatching(/^0\.\d+$/),
          checkedAt: '2030-02-01T00:00:00.000Z',
        },
      ],
    });
    const line = world.t.logs
      .entries()
      .find((entry) => String(entry.msg).includes('too little to pay gas'));
    expect(line).toMatchObject({ level: 50, network: 'base', relayer: relayer() });
    expect(world.t.logs.text()).not.toContain(sandboxRelayer().privateKey.slice(2));

    await rpc('hardhat_setBalance', [relayer(), `0x${funded.toString(16)}`]);
    expect(kinds(await world.executor.runOnce())).toEqual([[schedule.id, 1, 'succeeded']]);
    const again = await world.t.app.inject({ method: 'GET', url: '/readyz' });
    expect(again.json().recurringRelayers[0]).toMatchObject({ status: 'ok' });
  });
});
