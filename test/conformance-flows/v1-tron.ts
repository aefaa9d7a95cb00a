import type { LocalAccount } from 'viem';
import { expect } from 'vitest';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { TronTransaction } from '../../src/payments/transactions.ts';
import { accountOf, sendAll } from '../chain.ts';
import { signTronCall, TRON_CHAIN_ID, TRON_USDT } from '../tron-world.ts';
import { type ConformanceWorld, TRON_PAYER, USDC_BASE_ID } from './world.ts';

/**
 * The conformance flows of the v1 request operations, the Tron relay, and the operations new in
 * 0.31.0.
 */

/** Relays a Tron link’s signed approval to the Tron node. */
export async function tronRelay(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, tron, headers, ok } = world;
  const payer = accountOf(local.chain, TRON_PAYER) as LocalAccount;
  const target = resolveTarget(t.chains, {
    walletAddress: evmToTron(accountOf(local.chain, 1).address),
    chainId: TRON_CHAIN_ID,
    tokenAddress: TRON_USDT,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const link = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: { requests: [{ destinationId, amount: '4' }] },
  });
  ok(link, 201);
  const token = link.json().token as string;
  const calldata = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${evmToTron(payer.address)}`,
    headers: headers(),
  });
  ok(calldata);
  expect(calldata.json()).toMatchObject({ paymentType: 'single', flow: 'incoming' });
  expect(calldata.json().transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual([
    'tron',
    'tron',
  ]);
  const [approve] = calldata.json().transactions as TronTransaction[];
  const relayed = await t.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/tron/broadcast`,
    headers: headers(),
    payload: {
      signedTransaction: await signTronCall(tron.url, approve as TronTransaction, payer),
    },
  });
  ok(relayed);
  expect(relayed.json().result).toBe(true);

  // A request on Tron: its /pay names each call's chain type too.
  const request = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '1',
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
      payee: evmToTron(accountOf(local.chain, 1).address),
    },
  });
  ok(request, 201);
  const requestPay = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${request.json().requestId}/pay`,
    headers: headers(),
  });
  ok(requestPay);
  expect(requestPay.json().transactions.map((tx: { chainType: string }) => tx.chainType)).toEqual([
    'tron',
    'tron',
  ]);
}

/** Answers the v1 request operations: by payment reference, paid on chain, and /v1/pay. */
export async function v1RequestOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, indexer, headers, ok } = world;
  const payee = accountOf(local.chain, 1).address;
  const payer = accountOf(local.chain, 2);
  const body = {
    payee,
    amount: '2',
    invoiceCurrency: USDC_BASE_ID,
    paymentCurrency: USDC_BASE_ID,
  };
  const created = await t.app.inject({
    method: 'POST',
    url: '/v1/request',
    headers: headers(),
    payload: body,
  });
  ok(created, 201);
  const ref = created.json().paymentReference as string;
  const v1 = (method: 'GET' | 'PATCH', path: string) =>
    t.app.inject({ method, url: `/v1/request/${ref}${path}`, headers: headers() });
  ok(await v1('GET', ''));
  ok(await v1('GET', `/routes?wallet=${payer.address}`));
  const pay = await v1('GET', `/pay?wallet=${payer.address}`);
  ok(pay);
  await sendAll(
    local.chain,
    payer,
    pay
      .json()
      .transactions.map(
        (tx: { to: `0x${string}`; data: `0x${string}`; value: { hex: `0x${string}` } }) => ({
          to: tx.to,
          data: tx.data,
          value: tx.value.hex,
          chainId: local.chain.chainId,
        }),
      ),
  );
  await local.chain.provider.request({ method: 'evm_mine' });
  expect((await indexer.tick()).recorded).toBe(1);
  const paid = await v1('GET', '');
  ok(paid);
  expect(paid.json().payments).toHaveLength(1);

  const recurring = await t.app.inject({
    method: 'POST',
    url: '/v1/request',
    headers: headers(),
    payload: { ...body, recurrence: { startDate: '2026-12-01', frequency: 'MONTHLY' } },
  });
  ok(recurring, 201);
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/request/${recurring.json().paymentReference}/stop-recurrence`,
      headers: headers(),
    }),
  );
  ok(
    await t.app.inject({ method: 'POST', url: '/v1/pay', headers: headers(), payload: body }),
    201,
  );
}

/**
 * Answers the operations new in 0.31.0: health, history, export, funnel events, orchestrator
 * creation.
 */
export async function newIn031Operations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, indexer, ok } = world;
  ok(await t.app.inject({ method: 'GET', url: '/v2/health' }));
  ok(await t.app.inject({ method: 'GET', url: '/v1/health' }));
  const user = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: 'exporter@example.com', password: 'a long enough password' },
  });
  ok(user, 201);
  const session = { authorization: `Bearer ${user.json().sessionToken}` };
  const exported = await t.app.inject({
    method: 'GET',
    url: '/v2/dashboard/requests/export?flow=incoming',
    headers: session,
  });
  ok(exported);
  expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
  ok(
    await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators',
      headers: session,
      payload: { orchestratorName: 'Conformance', orchestratorContactEmail: 'ops@example.com' },
    }),
    201,
  );
  // A link made with the client ID, paid: the wallet's history has an item of each side.
  const clientId = { 'x-client-id': tenant.backendClientId };
  const payee = accountOf(local.chain, 1).address;
  const payer = accountOf(local.chain, 2);
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const link = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: clientId,
    payload: { requests: [{ destinationId, amount: '1' }] },
  });
  ok(link, 201);
  const token = link.json().token as string;
  ok(
    await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/events`,
      headers: clientId,
      payload: {
        userEvent: 'wallet_connected',
        occurredAt: t.clock.now().toISOString(),
        properties: { wallet_provider: 'MetaMask', payment_type: 'single' },
      },
    }),
    202,
  );
  const calldata = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
    headers: clientId,
  });
  ok(calldata);
  await sendAll(local.chain, payer, calldata.json().transactions);
  await local.chain.provider.request({ method: 'evm_mine' });
  expect((await indexer.tick()).recorded).toBe(1);
  for (const [wallet, type] of [
    [payer.address, 'outgoing'],
    [payee, 'incoming'],
  ]) {
    const history = await t.app.inject({
      method: 'GET',
      url: `/v2/transaction-history?address=${wallet}&limit=10&offset=0`,
      headers: clientId,
    });
    ok(history);
    expect(history.json()).toMatchObject([{ type, amountReceived: '1' }]);
  }
}
