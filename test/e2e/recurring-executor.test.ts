import { eq } from 'drizzle-orm';
import { getAddress, parseAbi, parseEventLogs } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PrivateKey } from '../../src/config/config.ts';
import { recurringExecutions } from '../../src/db/schema.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import { relayerAccount } from '../../src/payouts/recurring/relayer.ts';
import { accountOf } from '../chain.ts';
import {
  at,
  closeWorld,
  createSchedule,
  detect,
  headers,
  kinds,
  patchSchedule,
  readSchedule,
  retireSchedules,
  setAllowance,
  startWorld,
  usdcBalance,
  type World,
} from '../recurring-world.ts';

/**
 * The executor of recurring payouts on a local chain (issue #14, "Done when"): three monthly
 * payments on their dates with exact balances, each detected as its own request's payment; a
 * payer without allowance paused with `payment.failed` at a real receiver, then caught up in
 * order after `unpause`; `cancel` stopping it. Crash recovery and racing executors:
 * recurring-executor-recovery.test.ts.
 */

const FEE_PROXY_EVENT = parseAbi([
  'event TransferWithReferenceAndFee(address tokenAddress, address to, uint256 amount, bytes indexed paymentReference, uint256 feeAmount, address feeAddress)',
]);
const FEE_ADDRESS = getAddress('0x000000000000000000000000000000000000fee5');

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 120_000);
afterAll(() => closeWorld(world));
beforeEach(async () => {
  await retireSchedules(world);
  world.receiver.received.length = 0;
});

const payee = () => accountOf(world.local.chain, 1).address;

async function requestStatus(requestId: string) {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: headers(world),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('recurring payout executor', () => {
  it('pays three monthly payments on their dates, detected, and completes the schedule', async () => {
    await at(world, '2027-01-15T00:00:00Z');
    const payer = accountOf(world.local.chain, 2);
    const schedule = await createSchedule(world, {
      payer,
      payee: payee(),
      start: new Date('2027-02-01T09:00:00Z'),
      fee: { percentage: '1', address: FEE_ADDRESS },
    });
    // Nothing is due before the first date.
    await at(world, '2027-02-01T08:59:00Z');
    expect((await world.executor.runOnce()).outcomes).toEqual([]);

    const dates = ['2027-02-01T09:00:00Z', '2027-03-01T09:00:00Z', '2027-04-01T09:00:00Z'];
    const hashes: string[] = [];
    for (const [n, date] of dates.entries()) {
      const before = {
        payee: await usdcBalance(world, payee()),
        fee: await usdcBalance(world, FEE_ADDRESS),
        payer: await usdcBalance(world, payer.address),
      };
      await at(world, date);
      const run = await world.executor.runOnce();
      expect(kinds(run)).toEqual([[schedule.id, n + 1, 'succeeded']]);
      const txHash = run.outcomes[0]?.txHash;
      if (!txHash) throw new Error('no transaction');
      hashes.push(txHash);
      // 10 USDC to the payee, 1 % to the fee address, exactly that from the payer.
      expect((await usdcBalance(world, payee())) - before.payee).toBe(10_000_000n);
      expect((await usdcBalance(world, FEE_ADDRESS)) - before.fee).toBe(100_000n);
      expect(before.payer - (await usdcBalance(world, payer.address))).toBe(10_100_000n);
      // Its own reference: the index's request, which detection marks paid.
      const receipt = await world.local.chain.client.getTransactionReceipt({ hash: txHash });
      const [event] = parseEventLogs({ abi: FEE_PROXY_EVENT, logs: receipt.logs });
      const read = await readSchedule(world, schedule.id);
      const request = read.requests[n];
      expect(event?.args.paymentReference).toBe(referenceTopic(request.paymentReference.slice(2)));
      expect(await detect(world)).toBe(1);
      const status = await requestStatus(request.requestId);
      expect(status.status).toBe('paid');
      // The payer is the schedule's, not the relayer that sent the transaction (api-facts §1.6).
      expect(status.payerAddress).toBe(payer.address);
      // A second run on the same date pays nothing more.
      expect((await world.executor.runOnce()).outcomes).toEqual([]);
    }

    const read = await readSchedule(world, schedule.id);
    expect(read).toMatchObject({
      status: 'completed',
      processedPayments: 3,
      totalPayments: 3,
      lastPaymentDate: '2027-04-01T09:00:00.000Z',
      nextPaymentDate: null,
      failureCount: 0,
      failureReason: null,
    });
    expect(read.requests).toHaveLength(3);
    expect(read.requests[0].requestId).toBe(schedule.requestId);
    expect(read.payments.map((p: { txHash: string }) => p.txHash)).toEqual(hashes);
    expect(read.payments.map((p: { amount: string }) => p.amount)).toEqual(['10', '10', '10']);
    // Months later, a completed schedule triggers nothing.
    await at(world, '2027-06-01T09:00:00Z');
    expect((await world.executor.runOnce()).outcomes).toEqual([]);
  });

  it('pauses a payer without allowance with payment.failed, then catches up in order after unpause', async () => {
    await at(world, '2027-07-01T00:00:00Z');
    const payer = accountOf(world.local.chain, 3);
    const schedule = await createSchedule(world, {
      payer,
      payee: payee(),
      start: new Date('2027-08-01T00:00:00Z'),
      approve: false,
    });
    await setAllowance(world, payer, 0n);
    await at(world, '2027-08-01T00:00:00Z');
    const failed = await world.executor.runOnce();
    expect(kinds(failed)).toEqual([[schedule.id, 1, 'failed']]);
    // Found by the call: no transaction was sent.
    expect(failed.outcomes[0]?.txHash).toBeNull();
    const reason =
      'Insufficient allowance: the payer allows the recurring payment proxy 0 USDC-base, a payment takes 10 USDC-base';
    expect(failed.outcomes[0]?.reason).toBe(reason);
    // Earlier tests' payment.confirmed deliveries go out in this round too.
    const sent = await world.dispatcher.runOnce();
    const failures = (await world.receiver.waitFor(sent)).filter(
      (r) => r.body.event === 'payment.failed',
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]?.body).toEqual({
      event: 'payment.failed',
      requestId: schedule.requestId,
      requestID: schedule.requestId,
      paymentReference: schedule.paymentReference,
      timestamp: '2027-08-01T00:00:00.000Z',
      subStatus: 'failed',
      paymentProcessor: 'request-network',
      recurringPaymentId: schedule.id,
      paymentIndex: 1,
      failureReason: reason,
    });
    expect(await readSchedule(world, schedule.id)).toMatchObject({
      status: 'paused',
      processedPayments: 0,
      failureCount: 1,
      failureReason: reason,
      nextPaymentDate: null,
    });

    // Paused: all three dates pass without a trigger.
    await at(world, '2027-10-15T00:00:00Z');
    expect((await world.executor.runOnce()).outcomes).toEqual([]);

    await setAllowance(world, payer, 30_000_000n);
    const before = await usdcBalance(world, payee());
    expect((await patchSchedule(world, schedule.id, 'unpause')).status).toBe('active');
    const caughtUp = await world.executor.runOnce();
    expect(kinds(caughtUp)).toEqual([
      [schedule.id, 1, 'succeeded'],
      [schedule.id, 2, 'succeeded'],
      [schedule.id, 3, 'succeeded'],
    ]);
    expect((await usdcBalance(world, payee())) - before).toBe(30_000_000n);
    // In order on chain: each index's transaction mined after the one before.
    const blocks = await Promise.all(
      caughtUp.outcomes.map(async (o) =>
        o.txHash
          ? (await world.local.chain.client.getTransactionReceipt({ hash: o.txHash })).blockNumber
          : -1n,
      ),
    );
    expect([...blocks].sort((a, b) => Number(a - b))).toEqual(blocks);
    expect(new Set(blocks).size).toBe(3);
    expect(await detect(world)).toBe(3);
    const read = await readSchedule(world, schedule.id);
    expect(read).toMatchObject({
      status: 'completed',
      processedPayments: 3,
      failureCount: 1,
      failureReason: null,
    });
    expect(read.payments).toHaveLength(3);
  });

  it('stops triggering once cancelled', async () => {
    await at(world, '2027-11-01T00:00:00Z');
    const payer = accountOf(world.local.chain, 4);
    const schedule = await createSchedule(world, {
      payer,
      payee: payee(),
      start: new Date('2027-12-01T00:00:00Z'),
    });
    await at(world, '2027-12-01T00:00:00Z');
    expect(kinds(await world.executor.runOnce())).toEqual([[schedule.id, 1, 'succeeded']]);
    const cancelled = await patchSchedule(world, schedule.id, 'cancel');
    expect(cancelled.status).toBe('cancelled');
    const nonce = await world.local.chain.client.getTransactionCount({
      address: relayerAddress(world.t.config),
    });
    const before = await usdcBalance(world, payee());
    await at(world, '2028-03-01T00:00:00Z');
    expect((await world.executor.runOnce()).outcomes).toEqual([]);
    expect(await usdcBalance(world, payee())).toBe(before);
    expect(
      await world.local.chain.client.getTransactionCount({
        address: relayerAddress(world.t.config),
      }),
    ).toBe(nonce);
    const executions = await world.t.db
      .select()
      .from(recurringExecutions)
      .where(eq(recurringExecutions.recurringPayoutId, schedule.id));
    expect(executions.map((e) => [e.paymentIndex, e.state])).toEqual([[1, 'succeeded']]);
    expect((await readSchedule(world, schedule.id)).processedPayments).toBe(1);
  });

  it('gives an index back while the chain’s clock is behind ours, and pays it once it agrees', async () => {
    await at(world, '2028-04-01T00:00:00Z');
    const schedule = await createSchedule(world, {
      payer: accountOf(world.local.chain, 2),
      payee: payee(),
      start: new Date('2028-05-01T00:00:00Z'),
    });
    await at(world, '2028-04-30T23:00:00Z');
    // Our clock says due; the chain's last block is an hour earlier.
    world.t.clock.set(new Date('2028-05-01T00:00:00Z'));
    const early = await world.executor.runOnce();
    expect(early.outcomes).toEqual([
      {
        scheduleId: schedule.id,
        index: 1,
        kind: 'retry',
        txHash: null,
        reason: 'not due yet by the chain’s clock',
      },
    ]);
    expect((await readSchedule(world, schedule.id)).status).toBe('active');
    await at(world, '2028-05-01T00:00:00Z');
    expect(kinds(await world.executor.runOnce())).toEqual([[schedule.id, 1, 'succeeded']]);
  });
});

function relayerAddress(config: { recurringRelayerKey: PrivateKey | null }): `0x${string}` {
  return config.recurringRelayerKey ? relayerAccount(config.recurringRelayerKey).address : '0x';
}
