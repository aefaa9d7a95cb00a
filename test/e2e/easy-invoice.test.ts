import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn, usdcBalance } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * easy-invoice's invoice payment, replayed as its code makes the calls: the merchant's server
 * creates the request (`POST /v2/request`, with `isCryptoToFiatAvailable`); the invoice page
 * loads the routes for the connected wallet and selects the first; it switches the wallet to
 * the route's chain (its table maps `BASE` to 8453); it asks `/pay` without `chain` and `token`
 * for a `REQUEST_NETWORK_PAYMENT` route; it sends every transaction but the one at
 * `metadata.paymentTransactionIndex` when `metadata.needsApproval`, then that one; the
 * merchant's server then reads the request until it is paid.
 */

/** easy-invoice's own table from a route's `chain` to the chain id it switches the wallet to. */
const CHAIN_TO_ID: Readonly<Record<string, number>> = {
  SEPOLIA: 11155111,
  BASE: 8453,
  ETHEREUM: 1,
  ARBITRUM: 42161,
  OPTIMISM: 10,
  POLYGON: 137,
};

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({ env: local.env, transports: local.transports });
  tenant = await createTenant(t.db, 'Invoicer');
  indexer = testIndexer(t, { confirmations: 0 });
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({
    method,
    url,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });

describe('easy-invoice pays an invoice', () => {
  it('routes, then the chosen route’s /pay, the transactions sent, and the request paid', async () => {
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2);
    const created = await api('POST', '/v2/request', {
      amount: '125.5',
      payee,
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      isCryptoToFiatAvailable: false,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { requestId } = created.json() as { requestId: string };

    const routes = await api('GET', `/v2/request/${requestId}/routes?wallet=${payer.address}`);
    expect(routes.statusCode, routes.body).toBe(200);
    const [selected] = routes.json().routes as { id: string; chain: string; fee: number }[];
    if (!selected) throw new Error('no route to select: the page would disable its Pay button');
    expect(selected.id).toBe('REQUEST_NETWORK_PAYMENT');
    expect(CHAIN_TO_ID[selected.chain]).toBe(local.chain.chainId);
    expect(selected.fee).toBe(0); // shown as "No fee"

    const pay = await api('GET', `/v2/request/${requestId}/pay?wallet=${payer.address}`);
    expect(pay.statusCode, pay.body).toBe(200);
    const paymentData = pay.json() as {
      transactions: { to: Address; data: Hex; value: { hex: Hex } }[];
      metadata: { needsApproval: boolean; paymentTransactionIndex: number };
    };
    expect(paymentData.metadata.needsApproval).toBe(true);
    const index = paymentData.metadata.paymentTransactionIndex;
    const asSent = (tx: (typeof paymentData.transactions)[number]) => ({
      to: tx.to,
      data: tx.data,
      value: tx.value.hex,
      chainId: local.chain.chainId,
    });
    const approvals = paymentData.transactions.filter((_, i) => i !== index).map(asSent);
    const payment = paymentData.transactions[index];
    if (!payment) throw new Error('no payment at paymentTransactionIndex');

    const before = await usdcBalance(local.chain, payee);
    await sendAll(local.chain, payer, approvals);
    await sendAll(local.chain, payer, [asSent(payment)]);
    expect((await usdcBalance(local.chain, payee)) - before).toBe(125_500_000n);

    expect((await indexer.tick()).recorded).toBe(1);
    const status = await api('GET', `/v2/request/${requestId}`);
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json()).toMatchObject({ status: 'paid', hasBeenPaid: true });
  });
});
