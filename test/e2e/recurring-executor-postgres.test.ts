import { inArray } from 'drizzle-orm';
import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { createLeaderLock } from '../../src/db/leader-lock.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { recurringExecutions } from '../../src/db/schema.ts';
import { RELAYER_ROLE, recurringPaymentProxyAbi } from '../../src/payouts/recurring/abi.ts';
import { sandboxRelayer } from '../../src/sandbox/addresses.ts';
import { accountOf, sendAll } from '../chain.ts';
import { activeSchedule } from '../recurring.ts';
import {
  at,
  closeWorld,
  retireSchedules,
  setAllowance,
  startWorld,
  usdcBalance,
  type World,
} from '../recurring-world.ts';

/**
 * Several processes on one Postgres: one triggers a network at a time (the leader lock), and
 * executors racing anyway (each with a lock and a relayer of its own) never pay an index
 * twice: the claims' row locks keep them apart. Skipped on PGlite (one process).
 */

const source = inject('testDatabase');
const payee = (world: World) => accountOf(world.local.chain, 1).address;
const relayer = () => sandboxRelayer().address;
const nonceOf = (world: World, address: Address) =>
  world.local.chain.client.getTransactionCount({ address, blockTag: 'pending' });

describe.runIf(source.kind === 'postgres')('two executors on one Postgres', () => {
  const SCHEDULES = 6;
  let world: World;
  let second: DatabaseHandle;

  beforeAll(async () => {
    world = await startWorld();
    if (world.t.database.engine.kind !== 'postgres') throw new Error('needs Postgres');
    const url = (world.t.database.engine.pool.options as { connectionString: string })
      .connectionString;
    second = openPostgres(url, 4);
  });
  afterAll(async () => {
    await closeWorld(world);
    await second?.close();
  });
  beforeEach(() => retireSchedules(world));

  it('lets one process trigger a network at a time (the leader lock)', async () => {
    const lock = `test:recurring:leader:${Date.now()}`;
    const first = world.spawn({ lock: createLeaderLock(world.t.database, lock) });
    const other = world.spawn({ database: second, lock: createLeaderLock(second, lock) });
    expect((await first.runOnce()).leader).toBe(true);
    expect(await other.runOnce()).toEqual({ leader: false, outcomes: [] });
    await first.stop();
    expect((await other.runOnce()).leader).toBe(true);
  });

  it('never pays an index twice, however they race', async () => {
    await at(world, '2031-01-01T00:00:00Z');
    // A second relayer, granted the role by the proxy's admin: each process signs with its own.
    const other = privateKeyToAccount(generatePrivateKey());
    await world.local.chain.provider.request({
      method: 'hardhat_setBalance',
      params: [other.address, `0x${parseEther('10').toString(16)}`],
    });
    await sendAll(world.local.chain, accountOf(world.local.chain, 0), [
      {
        to: world.local.chain.addresses.recurringPaymentProxy,
        data: encodeFunctionData({
          abi: recurringPaymentProxyAbi,
          functionName: 'grantRole',
          args: [RELAYER_ROLE, other.address],
        }),
        value: '0x0',
        chainId: 8453,
      },
    ]);
    const ids: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const payer = accountOf(world.local.chain, 2 + (i % 2));
      await setAllowance(world, payer, 10n ** 12n);
      const row = await activeSchedule(
        world.t.db,
        world.t.chains,
        {
          accountId: world.tenant.accountId,
          payerKey: world.local.chain.wallets[2 + (i % 2)]?.privateKey as Hex,
          payee: payee(world),
          startDate: new Date('2031-02-01T00:00:00Z'),
        },
        world.t.clock.now(),
      );
      ids.push(row.id);
    }
    // Leader locks of their own: both run, so only the claims keep them apart.
    const executors = [world.spawn(), world.spawn({ database: second, relayer: other })];
    const before = await usdcBalance(world, payee(world));
    const nonces = await Promise.all([nonceOf(world, relayer()), nonceOf(world, other.address)]);
    const paid: string[] = [];
    const seen: unknown[] = [];
    for (const date of ['2031-02-01', '2031-03-01', '2031-04-01']) {
      await at(world, `${date}T00:00:00Z`);
      const runs = await Promise.all(executors.map((e) => e.runOnce()));
      for (const run of runs) {
        for (const o of run.outcomes) {
          expect(o.kind, JSON.stringify(o)).toBe('succeeded');
          paid.push(`${o.scheduleId}#${o.index}`);
          seen.push([date, o.scheduleId, o.index, o.txHash]);
        }
      }
    }
    expect(paid, JSON.stringify(seen)).toHaveLength(SCHEDULES * 3);
    expect(new Set(paid).size).toBe(SCHEDULES * 3);
    expect((await usdcBalance(world, payee(world))) - before).toBe(
      BigInt(SCHEDULES * 3) * 10_000_000n,
    );
    const sent =
      (await nonceOf(world, relayer())) -
      (nonces[0] ?? 0) +
      (await nonceOf(world, other.address)) -
      (nonces[1] ?? 0);
    expect(sent).toBe(SCHEDULES * 3);
    const rows = await world.t.db
      .select()
      .from(recurringExecutions)
      .where(inArray(recurringExecutions.recurringPayoutId, ids));
    expect(rows.every((r) => r.state === 'succeeded')).toBe(true);
    expect(new Set(rows.map((r) => r.txHash)).size).toBe(SCHEDULES * 3);
  });
});
