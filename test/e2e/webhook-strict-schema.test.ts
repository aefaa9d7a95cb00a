import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import {
  type Address,
  concat,
  custom,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  zeroAddress,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { FORWARDER_RUNTIME } from '../contract-wallet.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { STRICT_PAYMENT_EVENT } from '../strict-payment-event.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * A receiver written against the reference's payment payload with a strict schema
 * (test/strict-payment-event.ts). A delivery it rejects would be refused and retried for days.
 * Run on the sandbox network, whose `explorer` was null before it had a page of its own: every
 * delivery of a paid link, of a request paid in two parts, and of one paid from a contract
 * wallet must pass.
 */

const SANDBOX_CHAIN_ID = 31337;
const BASE_URL = 'http://127.0.0.1:8080';

const ajv = new Ajv({ allErrors: true, strict: true });
formats.default(ajv);
const strictCheck = ajv.compile(STRICT_PAYMENT_EVENT);

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: SANDBOX_CHAIN_ID });
  t = await createTestApp({
    env: { SANDBOX: 'true', BASE_URL },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    sandbox: { provider: chain.provider },
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { network: 'sandbox', confirmations: 0 });
  dispatcher = testDispatcher(t);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': tenant.backendClientId },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
  await chain.close();
});

const clientHeaders = () => ({ 'x-client-id': tenant.backendClientId });

/** Every delivery received must pass the strict schema; returns their bodies. */
function strictlyValid(): Record<string, unknown>[] {
  expect(receiver.refused).toEqual([]);
  return receiver.received.map((delivery) => {
    const ok = strictCheck(delivery.body);
    expect(ok, `${String(delivery.body.event)}: ${ajv.errorsText(strictCheck.errors)}`).toBe(true);
    return delivery.body;
  });
}

async function settle(count: number): Promise<void> {
  expect((await indexer.tick()).recorded).toBeGreaterThan(0);
  await dispatcher.runOnce();
  await receiver.waitFor(count);
}

describe('payment events against a strict client schema', () => {
  it('passes for every event of a paid link, with the sender and a working explorer URL', async () => {
    const payee = accountOf(chain, 1).address;
    const payer = accountOf(chain, 2);
    const target = resolveTarget(t.chains, {
      walletAddress: payee,
      chainId: SANDBOX_CHAIN_ID,
      tokenAddress: chain.addresses.usdc,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: clientHeaders(),
      payload: { requests: [{ destinationId, amount: '3.25' }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${created.json().token}/pay?wallet=${payer.address}`,
      headers: clientHeaders(),
    });
    const hashes = await sendAll(chain, payer, pay.json().transactions);
    const paymentTx = hashes.at(-1) as Hex;
    await settle(3);

    const bodies = strictlyValid();
    expect(bodies.map((b) => b.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
      'payment.confirmed.client_id',
    ]);
    for (const body of bodies) {
      expect(body).toMatchObject({
        network: 'sandbox',
        txHash: paymentTx,
        payerAddress: payer.address,
        payerEoaAddress: payer.address,
        explorer: `${BASE_URL}/sandbox/tx/${paymentTx}`,
      });
    }

    // The explorer URL answers: the sandbox's own page of the transaction, sent by the payer.
    const page = await t.app.inject({
      method: 'GET',
      url: new URL(String(bodies[0]?.explorer)).pathname,
    });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toMatchObject({
      network: 'sandbox',
      hash: paymentTx,
      status: 'success',
      from: payer.address.toLowerCase(),
    });
    expect(page.json().logs.length).toBeGreaterThan(0);
    const unknown = await t.app.inject({ method: 'GET', url: `/sandbox/tx/0x${'ab'.repeat(32)}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      code: 'transaction_not_found',
      message: 'Transaction not found on the sandbox chain',
    });
  });

  it('passes for payment.partial and the payment.confirmed that completes it', async () => {
    receiver.received.length = 0;
    const payer = accountOf(chain, 3);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: clientHeaders(),
      payload: {
        payee: accountOf(chain, 1).address,
        amount: '10',
        invoiceCurrency: 'USDC-sandbox',
        paymentCurrency: 'USDC-sandbox',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const requestId = created.json().requestId as string;
    for (const [amount, count] of [
      ['4', 2],
      ['6', 4],
    ] as const) {
      const pay = await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay?wallet=${payer.address}&amount=${amount}`,
        headers: clientHeaders(),
      });
      expect(pay.statusCode, pay.body).toBe(200);
      await sendAll(
        chain,
        payer,
        pay.json().transactions.map((tx: { to: string; data: Hex; value: { hex: Hex } }) => ({
          ...tx,
          value: tx.value.hex,
          chainId: SANDBOX_CHAIN_ID,
        })),
      );
      await settle(count);
    }
    const bodies = strictlyValid();
    expect(bodies.map((b) => b.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.client_id',
      'payment.partial',
      'payment.partial.client_id',
    ]);
    expect(bodies.every((b) => b.payerEoaAddress === payer.address)).toBe(true);
  });

  it('names the EOA that sent the transaction when a contract wallet pays', async () => {
    receiver.received.length = 0;
    const owner = accountOf(chain, 4);
    const wallet: Address = getAddress('0x00000000000000000000000000000000c0ffee01');
    await chain.provider.request({
      method: 'hardhat_setCode',
      params: [wallet, FORWARDER_RUNTIME],
    });
    const usdc = getAddress(chain.addresses.usdc);
    const proxy = getAddress(chain.addresses.erc20FeeProxy);
    const payee = accountOf(chain, 1).address;
    const tx = (to: Address, data: Hex) => ({
      to,
      data,
      value: '0x0' as const,
      chainId: SANDBOX_CHAIN_ID,
    });
    // The wallet holds the tokens; its owner, an EOA, funds it and then drives it.
    const transfer = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet, 2_000_000n],
    });
    await sendAll(chain, owner, [tx(usdc, transfer)]);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: clientHeaders(),
      payload: {
        payee,
        amount: '2',
        invoiceCurrency: 'USDC-sandbox',
        paymentCurrency: 'USDC-sandbox',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${created.json().requestId}`,
      headers: clientHeaders(),
    });
    const reference = status.json().paymentReference as Hex;
    const approve = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [proxy, 2_000_000n],
    });
    const pay = encodeFunctionData({
      abi: erc20FeeProxyAbi,
      functionName: 'transferFromWithReferenceAndFee',
      args: [usdc, payee, 2_000_000n, reference, 0n, zeroAddress],
    });
    const balance = (address: Address) =>
      chain.client.readContract({
        address: usdc,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      });
    const ownerBefore = await balance(owner.address);
    const [, paymentTx] = await sendAll(chain, owner, [
      tx(wallet, concat([usdc, approve])),
      tx(wallet, concat([proxy, pay])),
    ]);
    await settle(2);

    const bodies = strictlyValid();
    expect(bodies.map((b) => b.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.client_id',
    ]);
    expect(bodies.every((b) => b.payerEoaAddress === owner.address)).toBe(true);
    // The tokens left the wallet, not the EOA that sent the transaction.
    const page = await t.app.inject({ method: 'GET', url: `/sandbox/tx/${paymentTx}` });
    expect(page.json()).toMatchObject({
      from: owner.address.toLowerCase(),
      to: wallet.toLowerCase(),
    });
    expect(await balance(wallet)).toBe(0n);
    expect(await balance(owner.address)).toBe(ownerBefore);
  });

  it('passes for the test deliveries of every payment kind', async () => {
    receiver.received.length = 0;
    const kinds = [
      'payment.confirmed',
      'payment.partial',
      'payment.confirmed.client_id',
      'payment.partial.client_id',
      'payment.confirmed.checkout',
      'payment.partial.checkout',
    ];
    for (const eventType of kinds) {
      const sent = await t.app.inject({
        method: 'POST',
        url: '/v1/webhook/test',
        headers: clientHeaders(),
        payload: { eventType },
      });
      expect(sent.statusCode, sent.body).toBe(201);
    }
    await dispatcher.runOnce();
    await receiver.waitFor(kinds.length);
    expect(strictlyValid().map((b) => b.event)).toEqual(expect.arrayContaining(kinds));
  });
});
