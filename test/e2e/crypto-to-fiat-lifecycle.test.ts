import { eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIds, offrampTransfers, requests, webhookDeliveries } from '../../src/db/schema.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { accountOf, sendAll } from '../chain.ts';
import {
  createOfframpRequest,
  insertPayer,
  type OfframpWorld,
  postCallback,
  startOfframpWorld,
  until,
} from '../offramp-world.ts';

/**
 * A crypto-to-fiat request's life past one clean transfer: a partial payment delivered to fiat,
 * a `fiat_sent` reported before the deposit was seen, a second `/pay` after a transfer ended, a
 * bounce giving the request back its due, and `retry_required`. The provider's reports are
 * sent by hand (signed, as the fake signs them); the fake only makes the transfers.
 */

let world: OfframpWorld;
let seq = 0;

beforeAll(async () => {
  world = await startOfframpWorld();
});
afterAll(async () => {
  await world.close();
});

const apiKey = () => ({ 'x-api-key': world.tenant.apiKey });
const payer = () => accountOf(world.local.chain, 2);

async function status(requestId: string) {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: apiKey(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function newPayer() {
  seq += 1;
  const clientUserId = `life-${seq}`;
  const ids = await insertPayer(world, world.tenant.accountId, clientUserId);
  return { clientUserId, paymentDetailsId: ids.paymentDetailsId };
}

/** `/pay` to fiat: its answer and the provider's transfer it pays. */
async function pay(
  requestId: string,
  ids: { clientUserId: string; paymentDetailsId: string },
  amount?: string,
) {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay?${new URLSearchParams({
      ...ids,
      wallet: payer().address,
      ...(amount !== undefined && { amount }),
    })}`,
    headers: apiKey(),
  });
  const transfers = [...world.fake.transfers.values()].filter(
    (tr) => tr.clientReferenceId === requestId,
  );
  return { res, transfer: transfers.at(-1), count: transfers.length };
}

interface PayAnswer {
  transactions: { to: string; data: string; value: { hex: string } }[];
}

function txs(body: PayAnswer): EvmTransaction[] {
  return body.transactions.map((tx) => ({
    to: getAddress(tx.to),
    data: tx.data as `0x${string}`,
    value: tx.value.hex as `0x${string}`,
    chainId: world.local.chain.chainId,
  }));
}

/** Sends /pay's transactions and waits for detection to record the payment. */
async function sendPayment(body: PayAnswer) {
  await sendAll(world.local.chain, payer(), txs(body));
  await world.local.chain.provider.request({ method: 'evm_mine' });
  await until(async () => (await world.indexer.tick()).recorded > 0);
}

async function events(requestId: string) {
  return (await world.t.db.select().from(webhookDeliveries))
    .filter((d) => d.body.includes(requestId))
    .map((d) => ({ event: d.event, body: JSON.parse(d.body) }));
}

async function report(transferId: string, state: string) {
  const res = await postCallback(world, transferId, state);
  return { status: res.status, body: await res.json() };
}

describe('fiat sent for part of a request', () => {
  it('sends payment.partial, not payment.confirmed, and the request is not paid', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '10');
    const { res, transfer } = await pay(requestId, ids, '4');
    expect(res.statusCode, res.body).toBe(200);
    if (!transfer) throw new Error('no transfer');
    await sendPayment(res.json());
    expect(await report(transfer.id, 'fiat_sent')).toEqual({
      status: 200,
      body: { received: true, changed: true },
    });
    const sent = (await events(requestId)).filter((e) => e.body.subStatus === 'fiat_sent');
    expect(sent.map((e) => e.event).sort()).toEqual(['payment.partial', 'payment.processing']);
    expect(sent.find((e) => e.event === 'payment.partial')?.body).toMatchObject({
      event: 'payment.partial',
      isCryptoToFiat: true,
      paymentProcessor: 'request-tech',
      amount: '4',
      totalAmountPaid: '4',
      expectedAmount: '10',
    });
    expect(await status(requestId)).toMatchObject({
      status: 'partially_paid',
      hasBeenPaid: false,
      totalAmountPaid: '4',
    });
  });
});

describe('fiat_sent before the deposit was seen', () => {
  it('is refused with 409 and changes nothing; once the deposit is counted it confirms', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '3');
    const { res, transfer } = await pay(requestId, ids);
    if (!transfer) throw new Error('no transfer');
    const early = await report(transfer.id, 'fiat_sent');
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'offramp_deposit_not_seen' });
    expect(await events(requestId)).toEqual([]);
    expect(await status(requestId)).toMatchObject({
      status: 'pending',
      hasBeenPaid: false,
      offrampStatus: null,
    });
    await sendPayment(res.json());
    expect((await report(transfer.id, 'fiat_sent')).body).toEqual({
      received: true,
      changed: true,
    });
    const confirmed = (await events(requestId)).filter((e) => e.event === 'payment.confirmed');
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]?.body).toMatchObject({ amount: '3', totalAmountPaid: '3' });
    expect(await status(requestId)).toMatchObject({ status: 'paid', hasBeenPaid: true });
  });
});

describe('paying again after a transfer ended', () => {
  it('makes a new transfer for what remains, and the ended one’s address counts for nothing', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '10');
    const first = await pay(requestId, ids, '4');
    if (!first.transfer) throw new Error('no transfer');
    await sendPayment(first.res.json());
    await report(first.transfer.id, 'fiat_sent');
    const second = await pay(requestId, ids);
    expect(second.res.statusCode, second.res.body).toBe(200);
    expect(second.count).toBe(2);
    expect(second.transfer).toMatchObject({ amount: '6' });
    expect(second.transfer?.depositAddress).not.toBe(first.transfer.depositAddress);
    // Asked again before it is paid, the same new transfer.
    const again = await pay(requestId, ids);
    expect(again.count).toBe(2);
    expect(again.res.json().transactions).toEqual(second.res.json().transactions);
    // The first transfer's calldata sent again: its transfer ended, so nothing counts.
    await sendAll(world.local.chain, payer(), txs(first.res.json()));
    await world.local.chain.provider.request({ method: 'evm_mine' });
    await world.indexer.tick();
    expect(await status(requestId)).toMatchObject({ totalAmountPaid: '4' });
    await sendPayment(second.res.json());
    expect(await status(requestId)).toMatchObject({ totalAmountPaid: '10' });
  });
});

describe('transfers asked for other amounts', () => {
  /** Whether each answer pays a deposit address the provider opened for its own amount. */
  async function eachPaysItsOwnAmount(
    answers: { res: { json(): PayAnswer } }[],
    amounts: string[],
  ): Promise<void> {
    for (const [index, answer] of answers.entries()) {
      const data = answer.res
        .json()
        .transactions.map((tx) => tx.data.toLowerCase())
        .join();
      const opened = [...world.fake.transfers.values()].filter((tr) =>
        data.includes(tr.depositAddress.slice(2).toLowerCase()),
      );
      expect(opened.map((tr) => tr.amount)).toEqual([amounts[index]]);
    }
  }

  it('get a deposit address each, opened for their own amount, when asked at once', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '20');
    const answers = await Promise.all([pay(requestId, ids, '5'), pay(requestId, ids, '7')]);
    for (const { res } of answers) expect(res.statusCode, res.body).toBe(200);
    await eachPaysItsOwnAmount(answers, ['5', '7']);
  });

  it('get their own transfer after a crash lost the row of another amount’s', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '20');
    const first = await pay(requestId, ids, '5');
    expect(first.res.statusCode, first.res.body).toBe(200);
    // Fault injection: the process stopped after the provider made the transfer, before its
    // row was written.
    await world.t.db
      .delete(offrampTransfers)
      .where(eq(offrampTransfers.providerTransferId, first.transfer?.id ?? ''));
    const second = await pay(requestId, ids, '8');
    expect(second.res.statusCode, second.res.body).toBe(200);
    await eachPaysItsOwnAmount([second], ['8']);
  });
});

describe('a bounced transfer', () => {
  it('gives the request back its due: not paid, its deposit no longer counted, payable again', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '2');
    const first = await pay(requestId, ids);
    if (!first.transfer) throw new Error('no transfer');
    await sendPayment(first.res.json());
    // On its way to the bank: processing, and not paid yet.
    expect(await status(requestId)).toMatchObject({
      status: 'processing',
      hasBeenPaid: false,
      totalAmountPaid: '2',
    });
    await report(first.transfer.id, 'bounced');
    const failed = (await events(requestId)).find((e) => e.event === 'payment.failed');
    expect(failed?.body).toMatchObject({ subStatus: 'bounced', totalAmountPaid: '0' });
    expect(await status(requestId)).toMatchObject({
      status: 'failed',
      hasBeenPaid: false,
      totalAmountPaid: '0',
    });
    const again = await pay(requestId, ids);
    expect(again.res.statusCode, again.res.body).toBe(200);
    expect(again.count).toBe(2);
    await sendPayment(again.res.json());
    const paidAgain = await status(requestId);
    expect(paidAgain).toMatchObject({ status: 'processing', totalAmountPaid: '2' });
    // Before the fake's first report, or just after (it is quick).
    expect(['deposit_received', 'initiated']).toContain(paidAgain.offrampStatus);
  });
});

describe('retry_required', () => {
  it('is a payment.processing step: sent once per step it interrupts, never moving back', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '3.42');
    const { res, transfer } = await pay(requestId, ids);
    if (!transfer) throw new Error('no transfer');
    expect(transfer.outcome).toBe('retry');
    await sendPayment(res.json());
    const steps = [
      'initiated',
      'pending_internal_assessment',
      'retry_required',
      'pending_internal_assessment',
      'ongoing_checks',
      'sending_fiat',
      'fiat_sent',
    ];
    const sentFor = () => world.fake.sent.filter((s) => s.transferId === transfer.id);
    for (const index of steps.keys()) {
      if (index > 0) {
        const advanced = await fetch(`${world.fake.url}/control/transfers/${transfer.id}/advance`, {
          method: 'POST',
        });
        expect(advanced.status).toBe(202);
      }
      await until(() => sentFor().length === index + 1);
      if (steps[index] === 'retry_required') {
        expect((await status(requestId)).offrampStatus).toBe('retry_required');
        // Again, or a step it is past: nothing moves, nothing is sent.
        for (const state of ['retry_required', 'initiated'])
          expect((await report(transfer.id, state)).body).toEqual({
            received: true,
            changed: false,
          });
      }
    }
    expect(sentFor().map((s) => `${s.state} ${s.status}`)).toEqual(
      steps.map((state) => `${state} 200`),
    );
    const sent = await events(requestId);
    // Each step once, the one interrupted twice (the outbox's order is not the test's).
    expect(
      sent
        .filter((e) => e.event === 'payment.processing')
        .map((e) => e.body.subStatus)
        .sort(),
    ).toEqual([...steps].sort());
    expect(sent.filter((e) => e.event === 'payment.confirmed')).toHaveLength(1);
    expect(await status(requestId)).toMatchObject({ status: 'paid', hasBeenPaid: true });
  });
});

describe('a client ID’s crypto-to-fiat request', () => {
  it('also sends payment.confirmed.client_id once fiat is sent', async () => {
    const ids = await newPayer();
    const requestId = await createOfframpRequest(world, '1');
    const [client] = await world.t.db
      .insert(clientIds)
      .values({ accountId: world.tenant.accountId, clientId: `cid-${requestId}`, label: 'Shop' })
      .returning();
    await world.t.db
      .update(requests)
      .set({ clientIdId: client?.id ?? null })
      .where(eq(requests.requestId, requestId));
    const { res, transfer } = await pay(requestId, ids);
    if (!transfer) throw new Error('no transfer');
    await sendPayment(res.json());
    await report(transfer.id, 'fiat_sent');
    const sent = (await events(requestId)).filter((e) => e.body.subStatus === 'fiat_sent');
    expect(sent.map((e) => e.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.client_id',
      'payment.processing',
    ]);
    expect(sent.find((e) => e.event === 'payment.confirmed.client_id')?.body).toMatchObject({
      clientId: `cid-${requestId}`,
      isCryptoToFiat: true,
    });
  });
});
