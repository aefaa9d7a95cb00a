import { decodeFunctionData, encodeFunctionData, getAddress, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { accountOf, sendAll } from '../chain.ts';
import {
  createOfframpRequest,
  insertPayer,
  type OfframpWorld,
  postCallback,
  startOfframpWorld,
  transferCount,
  until,
} from '../offramp-world.ts';

/**
 * Crypto-to-fiat, end to end: a request made for a compliant payer's approved bank account is
 * paid on the local chain to the off-ramp's deposit address with the request's reference; the
 * fake provider sees the deposit and reports each step; each arrives at the merchant's
 * receiver as a signed `payment.processing`, then `payment.confirmed` once fiat is sent, or
 * `payment.failed` when the transfer bounced.
 */

let world: OfframpWorld;
let seq = 0;

beforeAll(async () => {
  world = await startOfframpWorld();
});
afterAll(async () => {
  await world.close();
});
beforeEach(() => {
  world.receiver.received.length = 0;
});
afterEach(() => {
  expect(world.receiver.refused).toEqual([]);
});

const apiKey = () => ({ 'x-api-key': world.tenant.apiKey });
const payer = () => accountOf(world.local.chain, 2);

async function payUrl(requestId: string, query: Record<string, string>) {
  return world.t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay?${new URLSearchParams(query)}`,
    headers: apiKey(),
  });
}

function evmTransactions(body: {
  transactions: { to: string; data: string; value: { hex: string } }[];
}): EvmTransaction[] {
  return body.transactions.map((tx) => ({
    to: getAddress(tx.to),
    data: tx.data as `0x${string}`,
    value: tx.value.hex as `0x${string}`,
    chainId: world.local.chain.chainId,
  }));
}

async function status(requestId: string) {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: apiKey(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Pays the request to fiat and waits for the indexer to record it. */
async function payToFiat(amount: string) {
  seq += 1;
  const ids = await insertPayer(world, world.tenant.accountId, `user-${seq}`);
  const requestId = await createOfframpRequest(world, amount);
  const query = {
    clientUserId: `user-${seq}`,
    paymentDetailsId: ids.paymentDetailsId,
    wallet: payer().address,
  };
  const res = await payUrl(requestId, query);
  expect(res.statusCode, res.body).toBe(200);
  const [transfer, ...more] = [...world.fake.transfers.values()].filter(
    (tr) => tr.clientReferenceId === requestId,
  );
  if (!transfer) throw new Error('no transfer at the provider');
  // Asked again, the same transfer and the same calldata.
  const again = await payUrl(requestId, query);
  expect(again.statusCode, again.body).toBe(200);
  expect(again.json().transactions).toEqual(res.json().transactions);
  expect(more).toEqual([]);
  expect(
    [...world.fake.transfers.values()].filter((tr) => tr.clientReferenceId === requestId),
  ).toHaveLength(1);
  await sendAll(world.local.chain, payer(), evmTransactions(res.json()));
  await world.local.chain.provider.request({ method: 'evm_mine' });
  await until(async () => (await world.indexer.tick()).recorded > 0 || false);
  return { requestId, transfer, pay: res.json(), query, ids };
}

/** Waits for the fake's report of `state`, sends what it wrote, and the events that arrive. */
async function step(transferId: string, state: string, events: number) {
  await until(() =>
    world.fake.sent.some(
      (s) => s.transferId === transferId && s.state === state && s.status === 200,
    ),
  );
  const before = world.receiver.received.length;
  await world.dispatcher.runOnce();
  const received = await world.receiver.waitFor(before + events);
  return received.slice(before).map((r) => r.body);
}

async function advance(transferId: string) {
  const res = await fetch(`${world.fake.url}/control/transfers/${transferId}/advance`, {
    method: 'POST',
  });
  expect(res.status).toBe(202);
}

describe('crypto-to-fiat requests', () => {
  it('are accepted without a payee in USDC and say so in their status', async () => {
    const requestId = await createOfframpRequest(world, '5');
    const body = await status(requestId);
    expect(body).toMatchObject({
      isCryptoToFiatAvailable: true,
      payee: zeroAddress,
      status: 'pending',
      offrampStatus: null,
    });
    // Paying it to a wallet makes no sense: it has none.
    const res = await payUrl(requestId, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('crypto_to_fiat_not_allowed');
  });

  it('refuse other currencies and networks by name', async () => {
    for (const paymentCurrency of ['USDT-sepolia', 'USDC-base']) {
      const res = await world.t.app.inject({
        method: 'POST',
        url: '/v2/request',
        headers: apiKey(),
        payload: {
          amount: '5',
          invoiceCurrency: paymentCurrency,
          paymentCurrency,
          isCryptoToFiatAllowed: true,
        },
      });
      expect(res.statusCode, paymentCurrency).toBe(400);
      expect(res.json().errors).toEqual([
        {
          field: 'paymentCurrency',
          message:
            'Crypto-to-fiat payments take USDC on Ethereum, Polygon, Arbitrum One, Sepolia and the sandbox',
        },
      ]);
    }
  });
});

describe('paying a request to fiat', () => {
  it('pays the deposit address through the fee proxy, then reports every step and confirms once fiat is sent', async () => {
    const { requestId, transfer, pay } = await payToFiat('25');
    // The calldata is the normal payment with the deposit address as payee.
    const proxy = world.t.chains.contracts('sepolia').erc20FeeProxy;
    const last = pay.transactions.at(-1);
    expect(getAddress(last.to)).toBe(getAddress(proxy ?? ''));
    const call = decodeFunctionData({ abi: erc20FeeProxyAbi, data: last.data });
    const reference = (await status(requestId)).paymentReference;
    expect(call.args).toEqual([
      getAddress(world.local.chain.addresses.usdc),
      transfer.depositAddress,
      25_000_000n,
      reference,
      0n,
      zeroAddress,
    ]);
    expect(transfer).toMatchObject({ amount: '25', rail: 'sepolia', currency: 'usdc' });
    // The payment on chain alone confirms nothing: it is the provider's to report.
    const paidOnChain = await status(requestId);
    expect(paidOnChain).toMatchObject({ status: 'processing', totalAmountPaid: '25' });
    // Before the provider's first report (or just after, the fake being quick).
    expect(['deposit_received', 'initiated']).toContain(paidOnChain.offrampStatus);
    const onChain = (await world.t.db.select().from(webhookDeliveries)).filter((d) =>
      d.body.includes(requestId),
    );
    expect(onChain.filter((d) => d.event !== 'payment.processing')).toEqual([]);
    const states = ['initiated', 'pending_internal_assessment', 'ongoing_checks', 'sending_fiat'];
    for (const [index, state] of states.entries()) {
      if (index > 0) await advance(transfer.id);
      const [event] = await step(transfer.id, state, 1);
      expect(event).toMatchObject({
        event: 'payment.processing',
        requestId,
        requestID: requestId,
        paymentReference: reference,
        offrampId: transfer.id,
        subStatus: state,
        paymentProcessor: 'request-tech',
        isCryptoToFiat: true,
        rawPayload: { status: state, providerId: transfer.id },
      });
      expect((await status(requestId)).status).toBe('processing');
    }
    await advance(transfer.id);
    const last2 = await step(transfer.id, 'fiat_sent', 2);
    expect(last2.map((e) => `${e.event} ${e.subStatus}`).sort()).toEqual([
      'payment.confirmed fiat_sent',
      'payment.processing fiat_sent',
    ]);
    expect(last2.find((e) => e.event === 'payment.confirmed')).toMatchObject({
      requestId,
      paymentReference: reference,
      isCryptoToFiat: true,
      paymentProcessor: 'request-tech',
      amount: '25',
      totalAmountPaid: '25',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      explorer: expect.stringMatching(/^https:\/\/sepolia\.etherscan\.io\/tx\/0x/),
      payerAddress: payer().address,
      payerEoaAddress: payer().address,
      payee: transfer.depositAddress,
      network: 'sepolia',
      currency: 'USDC',
      paymentCurrency: 'USDC-sepolia',
      fees: [],
    });
    expect(world.receiver.received.map((r) => r.body.event)).not.toContain('payment.partial');
    expect(await status(requestId)).toMatchObject({
      status: 'paid',
      hasBeenPaid: true,
      offrampStatus: 'fiat_sent',
      isCryptoToFiatAvailable: true,
    });

    // A repeated or late report changes nothing and sends nothing.
    for (const state of ['ongoing_checks', 'fiat_sent', 'bounced']) {
      const res = await postCallback(world, transfer.id, state);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, changed: false });
    }
    const deliveries = (await world.t.db.select().from(webhookDeliveries)).filter((d) =>
      d.body.includes(requestId),
    );
    expect(deliveries.filter((d) => d.event === 'payment.confirmed')).toHaveLength(1);
    expect(deliveries.filter((d) => d.event === 'payment.processing')).toHaveLength(5);
    expect(deliveries).toHaveLength(6);
  });

  it('ends in payment.failed with subStatus bounced when the bank returns the fiat', async () => {
    const { requestId, transfer } = await payToFiat('10.13');
    await step(transfer.id, 'initiated', 1);
    for (const state of ['pending_internal_assessment', 'ongoing_checks', 'sending_fiat']) {
      await advance(transfer.id);
      await step(transfer.id, state, 1);
    }
    await advance(transfer.id);
    const [failed] = await step(transfer.id, 'bounced', 1);
    expect(failed).toMatchObject({
      event: 'payment.failed',
      requestId,
      requestID: requestId,
      paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      subStatus: 'bounced',
      paymentProcessor: 'request-tech',
      offrampId: transfer.id,
    });
    expect(await status(requestId)).toMatchObject({ status: 'failed', offrampStatus: 'bounced' });
    const events = world.receiver.received.map((r) => r.body.event);
    expect(events).not.toContain('payment.confirmed');
  });
});

describe('a failed transfer', () => {
  it('ends in payment.failed with subStatus failed, and the request shows failed', async () => {
    const { requestId, transfer } = await payToFiat('8.66');
    await step(transfer.id, 'initiated', 1);
    await advance(transfer.id);
    await step(transfer.id, 'pending_internal_assessment', 1);
    await advance(transfer.id);
    const [failed] = await step(transfer.id, 'failed', 1);
    expect(failed).toMatchObject({
      event: 'payment.failed',
      requestId,
      subStatus: 'failed',
      paymentProcessor: 'request-tech',
      isCryptoToFiat: true,
    });
    expect(await status(requestId)).toMatchObject({ status: 'failed', offrampStatus: 'failed' });
    // Nothing after an end: a late fiat_sent sends no payment.confirmed.
    const late = await postCallback(world, transfer.id, 'fiat_sent');
    expect(await late.json()).toEqual({ received: true, changed: false });
  });
});

describe('a deposit address', () => {
  it('counts for its own request only: another request’s reference paid to it counts for nothing', async () => {
    const { transfer } = await payToFiat('6');
    const created = await world.t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: apiKey(),
      payload: {
        amount: '2',
        invoiceCurrency: 'USDC-sepolia',
        paymentCurrency: 'USDC-sepolia',
        payee: accountOf(world.local.chain, 1).address,
        isCryptoToFiatAvailable: true,
      },
    });
    const other = created.json().requestId;
    const res = await payUrl(other, { wallet: payer().address });
    expect(res.statusCode, res.body).toBe(200);
    // The other request's own calldata, its payee swapped for the first one's deposit address.
    const proxy = getAddress(world.t.chains.contracts('sepolia').erc20FeeProxy ?? '');
    const transactions = evmTransactions(res.json()).map((tx) => {
      if (getAddress(tx.to) !== proxy) return tx;
      const call = decodeFunctionData({ abi: erc20FeeProxyAbi, data: tx.data });
      if (call.functionName !== 'transferFromWithReferenceAndFee') return tx;
      const [token, , amount, reference, fee, feeAddress] = call.args;
      return {
        ...tx,
        data: encodeFunctionData({
          abi: erc20FeeProxyAbi,
          functionName: 'transferFromWithReferenceAndFee',
          args: [token, transfer.depositAddress, amount, reference, fee, feeAddress],
        }),
      };
    });
    await sendAll(world.local.chain, payer(), transactions);
    await world.local.chain.provider.request({ method: 'evm_mine' });
    await world.indexer.tick();
    expect(await status(other)).toMatchObject({ totalAmountPaid: '0', status: 'pending' });
  });
});

describe('refusals create no transfer', () => {
  it('answers 4xx for an unapproved payer or details, another account’s payer, or one id alone', async () => {
    const requestId = await createOfframpRequest(world, '3');
    const kyc = await insertPayer(world, world.tenant.accountId, 'kyc-pending', { kyc: 'pending' });
    const agreement = await insertPayer(world, world.tenant.accountId, 'agreement-pending', {
      agreement: 'pending',
    });
    const details = await insertPayer(world, world.tenant.accountId, 'details-pending', {
      details: 'pending',
    });
    const theirs = await insertPayer(world, world.other.accountId, 'their-user');
    const mine = await insertPayer(world, world.tenant.accountId, 'mine');
    const before = await transferCount(world);
    const cases: [Record<string, string>, number, string][] = [
      [
        { clientUserId: 'kyc-pending', paymentDetailsId: kyc.paymentDetailsId },
        400,
        'Payer kyc-pending is not compliant: its KYC must be approved and its agreement completed',
      ],
      [
        { clientUserId: 'agreement-pending', paymentDetailsId: agreement.paymentDetailsId },
        400,
        'Payer agreement-pending is not compliant: its KYC must be approved and its agreement completed',
      ],
      [
        { clientUserId: 'details-pending', paymentDetailsId: details.paymentDetailsId },
        400,
        `Payment details ${details.paymentDetailsId} are not approved yet`,
      ],
      [
        { clientUserId: 'their-user', paymentDetailsId: theirs.paymentDetailsId },
        404,
        'Payer with client user ID their-user not found',
      ],
      [
        { clientUserId: 'mine', paymentDetailsId: theirs.paymentDetailsId },
        400,
        `Payment details ${theirs.paymentDetailsId} are not this payer's`,
      ],
      [{ clientUserId: 'mine', paymentDetailsId: 'not-a-uuid' }, 400, 'Validation failed'],
      [{ clientUserId: 'mine' }, 400, 'Validation failed'],
      [{ paymentDetailsId: mine.paymentDetailsId }, 400, 'Validation failed'],
    ];
    for (const [query, code, message] of cases) {
      const res = await payUrl(requestId, query);
      expect(res.statusCode, JSON.stringify(query)).toBe(code);
      expect(res.json().message, JSON.stringify(query)).toBe(message);
    }
    // A malformed id is a validation error naming the field.
    const malformed = await payUrl(requestId, { clientUserId: 'mine', paymentDetailsId: 'x' });
    expect(malformed.json()).toMatchObject({
      statusCode: 400,
      code: 'validation_failed',
      errors: [{ field: 'paymentDetailsId', message: 'must be a UUID' }],
    });
    // A request made without crypto-to-fiat takes none.
    const plain = await world.t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: apiKey(),
      payload: {
        amount: '3',
        invoiceCurrency: 'USDC-sepolia',
        paymentCurrency: 'USDC-sepolia',
        payee: accountOf(world.local.chain, 1).address,
      },
    });
    const refused = await payUrl(plain.json().requestId, {
      clientUserId: 'mine',
      paymentDetailsId: mine.paymentDetailsId,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('crypto_to_fiat_not_allowed');
    expect(await transferCount(world)).toBe(before);
    expect(
      [...world.fake.transfers.values()].filter((tr) => tr.clientReferenceId === requestId),
    ).toEqual([]);
  });

  it('answers 401 to a callback without a valid signature, and changes nothing', async () => {
    const { transfer, requestId } = await payToFiat('4');
    await step(transfer.id, 'initiated', 1);
    for (const signature of [
      null,
      't=1,v1=00',
      `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`,
    ]) {
      const res = await postCallback(world, transfer.id, 'fiat_sent', signature);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'invalid_offramp_signature' });
    }
    expect((await status(requestId)).offrampStatus).toBe('initiated');
    // The same report again, mid-way: nothing moves, nothing is sent.
    const repeated = await postCallback(world, transfer.id, 'initiated');
    expect(await repeated.json()).toEqual({ received: true, changed: false });
    const written = (await world.t.db.select().from(webhookDeliveries)).filter((d) =>
      d.body.includes(requestId),
    );
    expect(written.map((d) => d.event)).toEqual(['payment.processing']);
    const unknown = await postCallback(world, 'tr_unknown', 'initiated');
    expect(unknown.status).toBe(404);
  });
});
