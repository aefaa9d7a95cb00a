import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant, usdcRequest } from '../../test/fixtures.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import type { FeePlan } from '../base/fee-plan.ts';
import { ulid } from '../base/ulid.ts';
import type { Database } from '../db/client.ts';
import { payments, requests, webhookDeliveries, webhooks } from '../db/schema.ts';
import { type Checkpoint, matchRequests, recordPayments } from '../detection/record.ts';
import type { DetectedPayment, PaymentSink } from '../detection/types.ts';
import { insertFeeLegs } from '../fees/legs.ts';
import { insertLink } from '../secure-payments/insert-link.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import type { DeliveryHandoff } from '../webhooks/handoff.ts';
import { claimLeaseMs } from '../webhooks/lease.ts';
import { createSettlement } from './settlement.ts';

/**
 * A payment's webhooks handed to this process's dispatcher as their transaction commits,
 * written already claimed: sent without a claim, never when the transaction rolls back, and
 * sent by any dispatcher once the lease runs out if this process never sends them. Payments
 * found together are settled together, each as one at a time would have been.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TIMEOUT_MS = 300;
/** The dispatcher's lease: eleven attempts' timeouts plus its margin. */
const LEASE_MS = claimLeaseMs(TIMEOUT_MS);
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let block = 0n;

beforeAll(async () => {
  t = await createTestApp({
    env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(res.statusCode, res.body).toBe(201);
  receiver.verifyWith(res.json().secret);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const dispatcher = () =>
  createDispatcher({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    secretBox: t.secretBox,
    config: t.config.webhooks,
  });

/** A new request of `expected` USDC base units on base, with what a payment of it names. */
async function newRequest(expected = 10n, securePaymentId: string | null = null) {
  const row = await usdcRequest(t.db, t.chains, {
    accountId: tenant.accountId,
    network: 'base',
    expectedAmount: expected,
    payee: PAYEE,
    securePaymentId,
  });
  if (!row.referenceTopic || !row.usdc.address) throw new Error('no reference');
  return {
    id: row.id,
    requestId: row.requestId,
    topic: row.referenceTopic,
    token: row.usdc.address,
  };
}

/** A payment of `amount` to a request, as detection would report it. */
function paymentOf(
  to: { readonly topic: string; readonly token: string },
  amount: bigint,
  at: { readonly txHash: string; readonly logIndex: number; readonly block: bigint },
): DetectedPayment {
  return {
    network: 'base',
    txHash: at.txHash,
    logIndex: at.logIndex,
    blockNumber: at.block,
    blockHash: `0x${'cd'.repeat(32)}`,
    timestamp: new Date(0),
    referenceTopic: to.topic,
    tokenAddress: to.token,
    payee: PAYEE,
    amount,
    feeAmount: 0n,
    feeAddress: null,
    payerAddress: PAYEE,
    payerEoaAddress: PAYEE,
  };
}

/** A payment in full of a new request, in a block of its own. */
async function paid(): Promise<{ payment: DetectedPayment; checkpoint: Checkpoint }> {
  const to = await newRequest();
  block += 1n;
  const txHash = `0x${block.toString(16).padStart(64, '0')}`;
  const payment = paymentOf(to, 10n, { txHash, logIndex: 0, block });
  return { payment, checkpoint: { network: 'base', lastBlock: block, blocks: [] } };
}

async function record(sink: PaymentSink, detected: Awaited<ReturnType<typeof paid>>) {
  const matched = await matchRequests(t.db, t.chains, 'base', [detected.payment]);
  expect(matched).toHaveLength(1);
  return recordPayments(t.db, { sink, now: t.clock.now() }, matched, detected.checkpoint);
}

const deliveriesOf = (requestTx: string) =>
  t.db
    .select()
    .from(webhookDeliveries)
    .then((rows) => rows.filter((row) => row.body.includes(requestTx)));

/** A dispatcher's handoff that grants every lease and notes what it is offered and given back. */
function recordingHandoff() {
  const offered: unknown[] = [];
  const released: number[] = [];
  const handoff: DeliveryHandoff = {
    lease: (now) => new Date(now.getTime() + LEASE_MS),
    offer: (rows) => offered.push(...rows),
    release: (rows) => released.push(rows),
  };
  return { handoff, offered, released };
}

describe('settling a payment with a running dispatcher', () => {
  it('sends its webhook on commit, written claimed, with neither a claim nor a wake', async () => {
    const running = dispatcher();
    // Polls an hour apart and never woken: only the handoff can send it in this test.
    running.start(3_600_000);
    try {
      const detected = await paid();
      const before = receiver.received.length;
      expect(await record(createSettlement({ chains: t.chains, handoff: running }), detected)).toBe(
        1,
      );
      const [received] = (await receiver.waitFor(before + 1, 5_000)).slice(before);
      expect(received?.body.event).toBe('payment.confirmed');
      expect(received?.body.txHash).toBe(detected.payment.txHash);
      expect(received?.headers['x-service-retry-count']).toBe('0');
      await running.stop();
      const [row] = await deliveriesOf(detected.payment.txHash);
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, lockedUntil: null });
      expect(received?.headers['x-service-delivery']).toBe(row?.id);
    } finally {
      await running.stop();
    }
  });

  it('hands nothing over when the transaction rolls back', async () => {
    const { handoff, offered, released } = recordingHandoff();
    const settlement = createSettlement({ chains: t.chains, handoff });
    const failing: PaymentSink = {
      ...settlement,
      recorded: async (tx, payment, now) => {
        await settlement.recorded(tx, payment, now);
        throw new Error('the database went away');
      },
    };
    const detected = await paid();
    await expect(record(failing, detected)).rejects.toThrow('the database went away');
    expect(offered).toEqual([]);
    // The room leased for its one event is given back.
    expect(released).toEqual([1]);
    expect(await deliveriesOf(detected.payment.txHash)).toEqual([]);
    // The same sink's next transaction hands over only its own rows.
    const next = await paid();
    expect(await record(settlement, next)).toBe(1);
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({ attempts: 1, url: receiver.url, live: true });
  });

  it('gives back the room leased for events whose write failed', async () => {
    const { handoff, offered, released } = recordingHandoff();
    const settlement = createSettlement({ chains: t.chains, handoff });
    // The outbox's INSERT fails (a fault injected), after the dispatcher granted its room.
    const failingOutbox = (tx: Database) =>
      new Proxy(tx, {
        get(target, property, receiver) {
          if (property !== 'insert') return Reflect.get(target, property, receiver);
          return (table: unknown) =>
            table === webhookDeliveries
              ? { values: () => Promise.reject(new Error('the outbox write failed')) }
              : target.insert(table as typeof webhookDeliveries);
        },
      });
    const failing: PaymentSink = {
      ...settlement,
      recorded: (tx, recorded, now) => settlement.recorded(failingOutbox(tx), recorded, now),
    };
    await expect(record(failing, await paid())).rejects.toThrow('the outbox write failed');
    expect(offered).toEqual([]);
    expect(released).toEqual([1]);
  });

  it('leaves rows handed to a process that died to any dispatcher once their lease ends', async () => {
    // A process that wrote the rows claimed, committed, and died before sending them.
    const died: DeliveryHandoff = {
      lease: (now) => new Date(now.getTime() + LEASE_MS),
      offer: () => {},
      release: () => {},
    };
    const detected = await paid();
    expect(await record(createSettlement({ chains: t.chains, handoff: died }), detected)).toBe(1);
    const [row] = await deliveriesOf(detected.payment.txHash);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    const other = dispatcher();
    expect(await other.runOnce()).toBe(0);
    t.clock.advance(LEASE_MS + 1);
    const before = receiver.received.length;
    // This row, and the one the previous test left with a fake that never sent it.
    expect(await other.runOnce()).toBe(2);
    const received = (await receiver.waitFor(before + 2))
      .slice(before)
      .find((r) => r.headers['x-service-delivery'] === row?.id);
    expect(received?.body.txHash).toBe(detected.payment.txHash);
    // Its second attempt: the first was counted when the row was written.
    expect(received?.headers['x-service-retry-count']).toBe('1');
  });

  it('writes rows unclaimed when the dispatcher has stopped, for the next claim to take', async () => {
    const stopped = dispatcher();
    const detected = await paid();
    expect(await record(createSettlement({ chains: t.chains, handoff: stopped }), detected)).toBe(
      1,
    );
    const [row] = await deliveriesOf(detected.payment.txHash);
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lockedUntil: null });
    const before = receiver.received.length;
    expect(await dispatcher().runOnce()).toBe(1);
    await receiver.waitFor(before + 1);
    const [sent] = await deliveriesOf(detected.payment.txHash);
    expect(sent).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('leases no more than a claim of 100 rows waits for a slot, and gives back what rolled back', async () => {
    const running = dispatcher();
    running.start(3_600_000);
    try {
      const now = t.clock.now();
      // Started, it claims a round's worth at once: what that claim may bring counts too.
      expect(running.lease(now, 81)).toBeNull();
      expect(running.lease(now, 80)).not.toBeNull();
      running.release(80);
      for (let waited = 0; running.lease(now, 100) === null; waited += 5) {
        if (waited > 5_000) throw new Error('the first claim never ended');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      running.release(100);
      expect(running.lease(now, 101)).toBeNull();
      expect(running.lease(now, 70)?.getTime()).toBe(now.getTime() + LEASE_MS);
      expect(running.lease(now, 31)).toBeNull();
      expect(running.lease(now, 30)).not.toBeNull();
      running.release(100);
      expect(running.lease(now, 100)).not.toBeNull();
      running.release(100);
    } finally {
      await running.stop();
    }
    expect(running.lease(t.clock.now(), 1)).toBeNull();
  });
});

describe('settling the payments of one range together', () => {
  it("counts each request's payments in order, each event telling the request as it left it", async () => {
    // Last in this file: its deliveries stay pending, and no dispatcher runs after it.
    const split = await newRequest(10n);
    const whole = await newRequest(5n);
    block += 1n;
    const txHash = `0x${'ab'.repeat(32)}`;
    const found = [
      paymentOf(split, 4n, { txHash, logIndex: 1, block }),
      paymentOf(whole, 5n, { txHash, logIndex: 2, block }),
      paymentOf(split, 4n, { txHash, logIndex: 3, block }),
      paymentOf(split, 4n, { txHash, logIndex: 4, block }),
    ];
    const matched = await matchRequests(t.db, t.chains, 'base', found);
    expect(matched).toHaveLength(4);
    const recorded = await recordPayments(
      t.db,
      { sink: createSettlement({ chains: t.chains }), now: t.clock.now() },
      matched,
      { network: 'base', lastBlock: block, blocks: [] },
    );
    expect(recorded).toBe(4);

    const rows = await t.db
      .select()
      .from(requests)
      .where(inArray(requests.id, [split.id, whole.id]));
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(split.id)).toMatchObject({ totalAmountPaid: 12n, status: 'paid' });
    expect(byId.get(split.id)?.paidAt).toEqual(t.clock.now());
    expect(byId.get(whole.id)).toMatchObject({ totalAmountPaid: 5n, status: 'paid' });

    // In the order the payments were found.
    const deliveries = await t.db
      .select({ body: webhookDeliveries.body, paymentId: webhookDeliveries.paymentId })
      .from(webhookDeliveries)
      .innerJoin(payments, eq(payments.id, webhookDeliveries.paymentId))
      .where(eq(payments.txHash, txHash))
      .orderBy(payments.logIndex);
    const events = deliveries.map((row) => JSON.parse(row.body) as Record<string, unknown>);
    expect(
      events.map(({ event, amount, totalAmountPaid, excessAmount }) => ({
        event,
        amount,
        totalAmountPaid,
        excessAmount,
      })),
    ).toEqual([
      { event: 'payment.partial', amount: '0.000004', totalAmountPaid: '0.000004' },
      { event: 'payment.confirmed', amount: '0.000005', totalAmountPaid: '0.000005' },
      { event: 'payment.partial', amount: '0.000004', totalAmountPaid: '0.000008' },
      {
        event: 'payment.confirmed',
        amount: '0.000004',
        totalAmountPaid: '0.000012',
        excessAmount: '0.000002',
      },
    ]);
    // One delivery a payment, each naming its own.
    expect(new Set(deliveries.map((row) => row.paymentId)).size).toBe(4);
  });
});

/** A link's plan when no fee applies, as link creation captures it. */
const PLAN_WITHOUT_FEES: FeePlan = {
  version: 1,
  flow: 'get_paid',
  defaultFeeBearer: 'payer',
  grossAmountUsd: '0.00001',
  netRecipientAmountUsd: '0.00001',
  payerTotalAmountUsd: '0.00001',
  totalFeesUsd: '0',
  payeeBorneFeesUsd: '0',
  payerBorneFeesUsd: '0',
  fees: [],
};

describe('the fee legs a payment event reports', () => {
  it('reads them for a link with no plan (a batch of payout links), not for a plan without fees', async () => {
    const caller = {
      accountId: tenant.accountId,
      clientId: null,
      orchestrated: false,
      orchestratorId: null,
      origin: null,
    };
    const link = (feePlan: FeePlan | null) =>
      insertLink(t.db, { token: ulid(), caller, network: 'base', now: t.clock.now(), feePlan });
    const batch = await link(null);
    const plain = await link(PLAN_WITHOUT_FEES);
    const moved = await newRequest(10n, batch.id);
    const unfeed = await newRequest(10n, plain.id);
    await insertFeeLegs(
      t.db,
      { requestId: moved.requestId, network: 'base', currency: 'USDC-base' },
      [
        {
          position: 0,
          type: 'protocol_fee',
          label: 'Protocol fee',
          feeBearer: 'payer',
          recipient: PAYEE,
          amount: 1n,
        },
      ],
    );
    block += 1n;
    const txHash = `0x${'ef'.repeat(32)}`;
    const found = [
      paymentOf(moved, 10n, { txHash, logIndex: 1, block }),
      paymentOf(unfeed, 10n, { txHash, logIndex: 2, block }),
    ];
    const matched = await matchRequests(t.db, t.chains, 'base', found);
    await recordPayments(
      t.db,
      { sink: createSettlement({ chains: t.chains }), now: t.clock.now() },
      matched,
      { network: 'base', lastBlock: block, blocks: [] },
    );
    const bodies = (
      await t.db
        .select({ body: webhookDeliveries.body, event: webhookDeliveries.event })
        .from(webhookDeliveries)
        .innerJoin(payments, eq(payments.id, webhookDeliveries.paymentId))
        .where(eq(payments.txHash, txHash))
        .orderBy(payments.logIndex)
    ).filter((row) => row.event === 'payment.confirmed.checkout');
    const [fromBatch, fromPlain] = bodies.map((row) => JSON.parse(row.body));
    expect(fromBatch.feeLegs).toMatchObject([
      { type: 'protocol_fee', status: 'outstanding', amount: '0.000001' },
    ]);
    expect(fromPlain.feeLegs).toBeUndefined();
  });
});

describe('a sink read ahead of its transaction', () => {
  it('writes the events for the endpoints that heard of the requests when it read', async () => {
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { url: `${receiver.url}/ahead` },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const second: string = registered.json().id;
    const settlement = createSettlement({ chains: t.chains });
    const ahead = await paid();
    const matched = await matchRequests(t.db, t.chains, 'base', [ahead.payment]);
    const sink = await settlement.readAhead?.(
      t.db,
      matched.map((m) => m.request),
    );
    if (!sink) throw new Error('the settlement reads nothing ahead');
    // Turned off after the read: as one turned off just after the events were written.
    await t.db.update(webhooks).set({ active: false }).where(eq(webhooks.id, second));
    expect(
      await recordPayments(t.db, { sink, now: t.clock.now() }, matched, ahead.checkpoint),
    ).toBe(1);
    const written = await deliveriesOf(ahead.payment.txHash);
    expect(written.filter((row) => row.webhookId === second)).toHaveLength(1);
    // The settlement itself asks in the transaction, and hears it is off.
    const plain = await paid();
    expect(await record(settlement, plain)).toBe(1);
    const asked = await deliveriesOf(plain.payment.txHash);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((row) => row.webhookId === second)).toEqual([]);
    // Left for no later test's dispatcher to send.
    await t.db.delete(webhookDeliveries).where(
      inArray(
        webhookDeliveries.id,
        [...written, ...asked].map((row) => row.id),
      ),
    );
  });
});
