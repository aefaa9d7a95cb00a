import { eq } from 'drizzle-orm';
import { encodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, requests } from '../../src/db/schema.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { approve, authParams, chainNow, wrapperAbi, write } from '../commerce-contracts.ts';
import { insertCommercePayment } from '../commerce-world.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * The commerce wrapper settles every leg through ERC20FeeProxy with the payment's reference
 * (contracts.md §5.1): a capture pays the merchant, which the commerce payment's request (payee
 * the merchant) records as a payment with `payment.partial` / `payment.confirmed`, counting
 * what was captured (the fee comes out of it, not on top) and naming the buyer as its payer.
 * But anyone may call the fee proxy with the reference: a leg no capture of the wrapper vouches
 * for (a buyer paying the merchant 1 base unit and itself the rest as a "fee"), or a leg back
 * to the buyer, pays nothing and announces nothing.
 */

/** The capture's fee receiver: any account. */
const FEE_RECEIVER: Hex = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: '0' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { confirmations: 0 });
  dispatcher = testDispatcher(t);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
  await indexer.tick();
});
afterAll(async () => {
  await receiver.close();
  await t?.close();
  await local?.chain.close();
});

/**
 * One leg sent straight to the fee proxy by the buyer, as the wrapper would send it: `amount`
 * to `to`, and `fee` to `feeReceiver`.
 */
async function leg(
  reference: Hex,
  to: string,
  amount: bigint,
  fee = 0n,
  feeReceiver: Hex = FEE_RECEIVER,
): Promise<Hex> {
  const sender = accountOf(local.chain, 2);
  const usdc = getAddress(local.chain.addresses.usdc);
  const proxy = getAddress(local.chain.addresses.erc20FeeProxy);
  const [, hash] = await sendAll(local.chain, sender, [
    {
      to: usdc,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [proxy, amount + fee],
      }),
      value: '0x0',
      chainId: 8453,
    },
    {
      to: proxy,
      data: encodeFunctionData({
        abi: erc20FeeProxyAbi,
        functionName: 'transferFromWithReferenceAndFee',
        args: [
          usdc,
          getAddress(to),
          amount,
          reference,
          fee,
          fee === 0n ? zeroAddress : feeReceiver,
        ],
      }),
      value: '0x0',
      chainId: 8453,
    },
  ]);
  if (!hash) throw new Error('no payment sent');
  return hash;
}

const wrapper = () => local.chain.addresses.commerceEscrowWrapper;
const merchant = () => accountOf(local.chain, 1).address;
const buyer = () => accountOf(local.chain, 2);
const operator = () => accountOf(local.chain, 0);

/** A commerce payment of 50 USDC whose buyer is not known yet (a pay-page link). */
const newPayment = () =>
  insertCommercePayment(t, {
    accountId: tenant.accountId,
    merchant: merchant(),
    payer: null,
    operator: operator().address,
    amount: 50_000_000n,
  });

/** The buyer holds 50 USDC in the escrow for the operator; detected and announced. */
async function authorize(reference: Hex): Promise<void> {
  const params = authParams(local.chain, {
    paymentReference: reference,
    payer: buyer().address,
    merchant: merchant(),
    operator: operator().address,
    token: local.chain.addresses.usdc,
    amount: 50_000_000n,
    now: await chainNow(local.chain),
  });
  await approve(local.chain, buyer(), local.chain.addresses.usdc, wrapper(), params.amount);
  await write(local.chain, buyer(), {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'authorizePayment',
    args: [params],
  });
  expect((await indexer.tick()).recorded).toBe(1);
  await dispatcher.runOnce();
  const [authorized] = await receiver.waitFor(1);
  expect(authorized?.body.event).toBe('commerce_payment.authorized');
  receiver.received.length = 0;
}

async function capture(reference: Hex, amount: bigint, feeBps = 0): Promise<Hex> {
  const receipt = await write(local.chain, operator(), {
    address: wrapper(),
    abi: wrapperAbi,
    functionName: 'capturePayment',
    args: [reference, amount, feeBps, feeBps > 0 ? FEE_RECEIVER : zeroAddress],
  });
  return receipt.transactionHash;
}

const paidOf = (requestRowId: string) =>
  t.db.select().from(payments).where(eq(payments.requestRowId, requestRowId));

function requestStatus(requestId: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

describe('the legs of a commerce payment through the fee proxy', () => {
  it('records the wrapper’s captures as the request’s payments, paid by the buyer', async () => {
    const { row, request, reference } = await newPayment();
    await authorize(reference);
    // Capture 30 with a 1 % fee: the merchant gets 29.70, the fee receiver 0.30.
    const first = await capture(reference, 30_000_000n, 100);
    // Its commerce event and the merchant's payment.
    expect((await indexer.tick()).recorded).toBe(2);
    expect(
      (await paidOf(request.id)).map((p) => [
        p.txHash,
        p.payee,
        p.amount,
        p.feeAmount,
        p.requestAmount,
        p.payerAddress,
        p.payerEoaAddress,
      ]),
    ).toEqual([
      [
        first,
        getAddress(merchant()),
        29_700_000n,
        300_000n,
        30_000_000n,
        buyer().address,
        buyer().address,
      ],
    ]);
    // The request learnt its payer from the authorization.
    const [requestRow] = await t.db.select().from(requests).where(eq(requests.id, request.id));
    expect(requestRow?.payer?.toLowerCase()).toBe(buyer().address.toLowerCase());
    await dispatcher.runOnce();
    const partial = (await receiver.waitFor(2)).find((r) => r.body.event === 'payment.partial');
    expect(partial?.body).toMatchObject({
      event: 'payment.partial',
      requestId: row.requestId,
      txHash: first,
      // What was captured, its fee included: the wrapper takes the fee out of it.
      amount: '30',
      totalAmountPaid: '30',
      payerAddress: buyer().address,
      fees: [{ type: 'platform', amount: '0.3', currency: 'USDC-base' }],
    });

    // The rest captured: the request is paid.
    const rest = await capture(reference, 20_000_000n);
    expect((await indexer.tick()).recorded).toBe(2);
    await dispatcher.runOnce();
    const all = await receiver.waitFor(4);
    expect(
      all
        .filter((r) => String(r.body.event).startsWith('payment.'))
        .map((r) => [r.body.event, r.body.txHash]),
    ).toEqual([
      ['payment.partial', first],
      ['payment.confirmed', rest],
    ]);
    expect((await requestStatus(row.requestId)).json()).toMatchObject({
      status: 'paid',
      totalAmountPaid: '50',
    });
    receiver.received.length = 0;
  });

  it('counts no leg the wrapper did not send: a buyer’s own call to the fee proxy pays nothing', async () => {
    const { row, request, reference } = await newPayment();
    await authorize(reference);
    const buyerAddress = buyer().address;
    // 1 base unit to the merchant, the rest to the buyer itself as the leg's "fee": counted as
    // amount and fee, it would pay the whole request.
    await leg(reference, merchant(), 1n, 49_999_999n, buyerAddress);
    // A leg back to the buyer, as a void's or a refund's.
    await leg(reference, buyerAddress, 10_000_000n);
    expect((await indexer.tick()).recorded).toBe(0);
    expect(await paidOf(request.id)).toEqual([]);
    expect((await requestStatus(row.requestId)).json()).toMatchObject({
      status: 'pending',
      totalAmountPaid: '0',
    });
    expect(await dispatcher.runOnce()).toBe(0);
    expect(receiver.received.filter((r) => r.body.requestId === row.requestId)).toEqual([]);
  });
});
