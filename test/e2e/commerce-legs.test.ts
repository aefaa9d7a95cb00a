import { eq } from 'drizzle-orm';
import { encodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '../../src/db/schema.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { insertCommercePayment } from '../commerce-world.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * The commerce wrapper settles every leg through ERC20FeeProxy with the payment's reference
 * (contracts.md §5.1): a capture pays the merchant, which the commerce payment's request (payee
 * the merchant) records as a payment with `payment.partial` / `payment.confirmed`, counting
 * what was captured (the fee comes out of it, not on top); a void,
 * refund or reclaim pays the buyer back, which must pay no request and announce nothing. The
 * legs are sent here as the wrapper sends them, straight to the fee proxy.
 */

/** The capture's fee receiver: any account. */
const FEE_RECEIVER = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';

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

/** One leg of the payment: `amount` (and `fee` to the fee receiver) to `to`, by the fee proxy. */
async function leg(reference: Hex, to: string, amount: bigint, fee = 0n): Promise<Hex> {
  const sender = accountOf(local.chain, 3);
  const usdc = getAddress(local.chain.addresses.usdc);
  const proxy = getAddress(local.chain.addresses.erc20FeeProxy);
  const feeReceiver = FEE_RECEIVER;
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

describe('the legs of a commerce payment through the fee proxy', () => {
  it('records the merchant’s legs as the request’s payments and ignores the legs back to the payer', async () => {
    const merchant = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2).address;
    const { row, request, reference } = await insertCommercePayment(t, {
      accountId: tenant.accountId,
      merchant,
      payer,
      operator: accountOf(local.chain, 0).address,
      amount: 50_000_000n,
    });
    const paid = () => t.db.select().from(payments).where(eq(payments.requestRowId, request.id));

    // Capture 30 with a 1 % fee: the merchant gets 29.70, the fee receiver 0.30.
    const capture = await leg(reference, merchant, 29_700_000n, 300_000n);
    // A refund of 10 back to the payer.
    const refund = await leg(reference, payer, 10_000_000n);
    expect((await indexer.tick()).recorded).toBe(1);
    expect((await paid()).map((p) => [p.txHash, p.payee, p.amount, p.feeAmount])).toEqual([
      [capture, getAddress(merchant), 29_700_000n, 300_000n],
    ]);
    await dispatcher.runOnce();
    const first = await receiver.waitFor(1);
    expect(first.map((r) => r.body)).toEqual([
      expect.objectContaining({
        event: 'payment.partial',
        requestId: row.requestId,
        txHash: capture,
        // What was captured, its fee included: the wrapper takes the fee out of it.
        amount: '30',
        totalAmountPaid: '30',
        fees: [{ type: 'platform', amount: '0.3', currency: 'USDC-base' }],
      }),
    ]);
    expect(first.some((r) => r.body.txHash === refund)).toBe(false);

    // The rest captured: the request is paid. A void's leg back to the payer changes nothing.
    const rest = await leg(reference, merchant, 20_000_000n);
    const voided = await leg(reference, payer, 1n);
    expect((await indexer.tick()).recorded).toBe(1);
    await dispatcher.runOnce();
    const all = await receiver.waitFor(2);
    expect(all.map((r) => [r.body.event, r.body.txHash])).toEqual([
      ['payment.partial', capture],
      ['payment.confirmed', rest],
    ]);
    expect(all.some((r) => r.body.txHash === voided)).toBe(false);
    expect(await paid()).toHaveLength(2);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${row.requestId}`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(status.json()).toMatchObject({ status: 'paid', totalAmountPaid: '50' });
  });
});
