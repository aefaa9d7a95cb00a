import { expect } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { accountOf, sendAll } from '../chain.ts';
import { type ConformanceWorld, USDC_BASE_ID } from './world.ts';

/**
 * The conformance flows of requests and links: creation, calldata, a payment found on chain, and
 * the intents recorded against a link.
 */

/** Answers the request, link, calldata and payment operations before and after a payment. */
export async function requestAndLinkOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, indexer, headers, ok } = world;
  const payee = accountOf(local.chain, 1).address;
  const payer = accountOf(local.chain, 2);
  const request = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '3',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
      payee,
      isCryptoToFiatAvailable: false,
      customerInfo: { firstName: 'Ada', address: { country: 'GB' } },
    },
  });
  ok(request, 201);
  const requestId = request.json().requestId as string;
  ok(await t.app.inject({ method: 'GET', url: `/v2/request/${requestId}`, headers: headers() }));
  const requestPay = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay?wallet=${payer.address}`,
    headers: headers(),
  });
  ok(requestPay);
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}/routes?wallet=${payer.address}&feePercentage=1&feeAddress=${payee}`,
      headers: headers(),
    }),
  );
  ok(
    await t.app.inject({
      method: 'POST',
      url: '/v2/payouts',
      headers: headers(),
      payload: {
        payee,
        amount: '2',
        invoiceCurrency: USDC_BASE_ID,
        paymentCurrency: USDC_BASE_ID,
        payerWallet: payer.address,
      },
    }),
    201,
  );
  ok(
    await t.app.inject({
      method: 'POST',
      url: '/v2/payouts/batch',
      headers: headers(),
      payload: { requestIds: [requestId], payer: payer.address },
    }),
    201,
  );

  // The link pays a destination registered the operator's way (the CLI's).
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const link = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: { requests: [{ destinationId, amount: '2' }], reference: 'order-1' },
  });
  ok(link, 201);
  const { token, requestIds } = link.json() as { token: string; requestIds: string[] };
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: headers(),
    }),
  );
  // With the payer's wallet the display carries paymentOptions, held to the schemas too.
  const display = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}?wallet=${payer.address}`,
    headers: headers(),
  });
  ok(display);
  expect(display.json().paymentOptions.BASE.USDC).toMatchObject({ neededAmount: '2' });
  const calldata = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
    headers: headers(),
  });
  ok(calldata);
  // A link only other wallets may pay: made with the reference's whole accessPolicy, and its
  // calldata refused to this payer with the reference's 403 (src/screening/).
  const restricted = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: {
      requests: [{ destinationId, amount: '2' }],
      accessPolicy: {
        mode: 'off',
        screeningProvider: null,
        hideUntilApproved: false,
        hidePayeeAddress: false,
        allowedPayerAddresses: [payee],
      },
    },
  });
  ok(restricted, 201);
  const refused = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${restricted.json().token}/pay?wallet=${payer.address}`,
    headers: headers(),
  });
  ok(refused, 403);
  expect(refused.json().code).toBe('payer_not_allowed');
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments?requestId=${requestIds[0]}`,
      headers: headers(),
    }),
  );

  // From Arbitrum: a cross-chain route (variant A with its metadata), and its step refreshed.
  const bridged = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}&chain=ARBITRUM&token=USDT`,
    headers: headers(),
  });
  ok(bridged);
  ok(
    await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/refresh-step-transaction`,
      headers: headers(),
      payload: { step: bridged.json().metadata.rawStep },
    }),
  );

  await sendAll(local.chain, payer, calldata.json().transactions);
  await local.chain.provider.request({ method: 'evm_mine' });
  expect((await indexer.tick()).recorded).toBe(1);

  // Paid: the status record, the lookup and the search carry the payment.
  const paid = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestIds[0]}`,
    headers: headers(),
  });
  ok(paid);
  // 0.31.0's fields: the request as written, and the payment typed: 2 USDC sent and
  // received on Base in one transaction, nothing beyond what was owed.
  expect(paid.json()).toMatchObject({
    payee,
    requestAmount: '2',
    invoiceCurrency: USDC_BASE_ID,
    paymentCurrency: USDC_BASE_ID,
  });
  expect(paid.json().payments).toEqual([
    expect.objectContaining({
      amount: '2',
      sourceNetwork: 'base',
      destinationNetwork: 'base',
      sourceTxHash: paid.json().txHash,
      destinationTxHash: null,
      paidAmount: '2',
      paidCurrency: 'USDC',
      paidNetwork: 'base',
      receivedAmount: '2',
      receivedCurrency: 'USDC',
      receivedNetwork: 'base',
      excessAmount: null,
      excessCurrency: null,
      currency: 'USDC',
      paymentCurrency: USDC_BASE_ID,
      detectionSource: 'request-network',
      note: null,
    }),
  ]);
  expect(paid.json().txHash).toMatch(/^0x[0-9a-f]{64}$/);
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments?requestId=${requestIds[0]}`,
      headers: headers(),
    }),
  );
  const search = await t.app.inject({
    method: 'GET',
    url: `/v2/payments?requestId=${requestIds[0]}`,
    headers: headers(),
  });
  ok(search);
  expect(search.json().payments).toHaveLength(1);
  // The reference documents these error bodies of the search too.
  ok(await t.app.inject({ method: 'GET', url: '/v2/payments', headers: headers() }), 400);
  ok(await t.app.inject({ method: 'GET', url: '/v2/payments?requestId=x' }), 401);
}

/**
 * Answers the intent operations: a payer’s transaction, a Safe’s, and the 423 it puts on the link.
 */
export async function intentOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, headers, ok } = world;
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, 1).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const tokens: string[] = [];
  for (let i = 0; i < 2; i++) {
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: { requests: [{ destinationId, amount: '1' }] },
    });
    ok(link, 201);
    tokens.push(link.json().token);
  }
  const [sent, safe] = tokens;
  const intent = (token: string | undefined, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/intent`,
      headers: headers(),
      payload: { chain: 'BASE', token: 'USDC', ...body },
    });
  ok(await intent(sent, { txHash: `0x${'12'.repeat(32)}` }));
  ok(await intent(safe, { safeTxHash: `0x${'34'.repeat(32)}` }));
  const locked = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${safe}`,
    headers: headers(),
  });
  expect(locked.statusCode, locked.body).toBe(423);
}

/** Answers the link-intent operations. */
export async function linkIntentOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, ok } = world;
  const { orchestratorKey } = await createOrchestrator(t.db, 'Conformance intents');
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/client-id-link-intents',
    headers: { 'x-orchestrator-key': orchestratorKey },
    payload: { clientIdName: 'Invited', domains: ['https://invited.example'], externalId: 'x1' },
  });
  ok(created, 201);
  const user = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: 'invited@example.com', password: 'a long enough password' },
  });
  ok(user, 201);
  const session = { authorization: `Bearer ${user.json().sessionToken}` };
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, 3).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  await activateDestination(t.db, t.clock, user.json().accountId, target);
  const url = `/v1/client-id-links/intents/${created.json().intent.accessToken}`;
  ok(await t.app.inject({ method: 'GET', url, headers: session }));
  const completed = await t.app.inject({ method: 'POST', url, headers: session });
  ok(completed, 201);
  ok(
    await t.app.inject({
      method: 'PUT',
      url: `/v1/client-id-links/${completed.json().clientId.id}/kyt`,
      headers: session,
      payload: { providers: [{ provider: 'hypernative' }] },
    }),
  );
}
