import type { LocalAccount } from 'viem';
import { expect } from 'vitest';
import { accountOf } from '../chain.ts';
import { type ConformanceWorld, USDC_BASE_ID } from './world.ts';

/**
 * The conformance flows of payouts: recurring requests, payout links, multicall links and
 * recurring payouts.
 */

/** Answers the recurring-request operations: the original, an occurrence, and PATCH. */
export async function recurringRequestOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const body = {
    amount: '9',
    invoiceCurrency: USDC_BASE_ID,
    paymentCurrency: USDC_BASE_ID,
    payee: accountOf(local.chain, 1).address,
  };
  const original = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: { ...body, recurrence: { startDate: '2026-12-01T00:00:00Z', frequency: 'WEEKLY' } },
  });
  ok(original, 201);
  const { requestId, paymentReference } = original.json();
  const occurrence = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      ...body,
      originalRequestId: requestId,
      originalRequestPaymentReference: paymentReference,
    },
  });
  ok(occurrence, 201);
  // The status records carry the recurrence fields in the reference's types.
  const shown = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: headers(),
  });
  ok(shown);
  expect(shown.json().recurrence).toEqual({
    startDate: '2026-12-01T00:00:00.000Z',
    frequency: 'WEEKLY',
  });
  const occurrenceShown = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${occurrence.json().requestId}`,
    headers: headers(),
  });
  ok(occurrenceShown);
  expect(occurrenceShown.json().originalRequestId).toBe(requestId);
  const stopped = await t.app.inject({
    method: 'PATCH',
    url: `/v2/request/${requestId}`,
    headers: headers(),
    payload: { isRecurrenceStopped: true },
  });
  ok(stopped);
  expect(stopped.json().isRecurrenceStopped).toBe(true);
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: `/v2/request/${requestId}`,
      headers: headers(),
      payload: { isRecurrenceStopped: false },
    }),
  );
  // The reference documents PATCH's 404 too.
  ok(
    await t.app.inject({
      method: 'PATCH',
      url: `/v2/request/01${'0'.repeat(64)}`,
      headers: headers(),
      payload: { isRecurrenceStopped: true },
    }),
    404,
  );
}

/** Answers the payout-link operations: a payout link, its display, and a batch of two. */
export async function payoutLinkOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const creator = accountOf(local.chain, 2).address;
  const tokens: string[] = [];
  for (const amount of ['1', '2.5']) {
    const payout = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/payouts',
      headers: headers(),
      payload: {
        recipient: accountOf(local.chain, 3).address,
        creatorWalletAddress: creator,
        network: 'base',
        currency: USDC_BASE_ID,
        amount,
        recipientIdentifier: 'supplier-1',
      },
    });
    ok(payout, 201);
    tokens.push(payout.json().token);
  }
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${tokens[0]}`,
      headers: headers(),
    }),
  );
  const batch = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/batch-payouts',
    headers: headers(),
    payload: { tokens },
  });
  ok(batch, 201);
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${batch.json().token}`,
      headers: headers(),
    }),
  );
}

/** Answers the multicall operations: creation, its view, the page view and Variant C. */
export async function multicallOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const creator = accountOf(local.chain, 2).address;
  const children: string[] = [];
  for (const amount of ['1', '2.5']) {
    const payout = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/payouts',
      headers: headers(),
      payload: {
        recipient: accountOf(local.chain, 3).address,
        creatorWalletAddress: creator,
        network: 'base',
        currency: USDC_BASE_ID,
        amount,
      },
    });
    ok(payout, 201);
    children.push(payout.json().token);
  }
  const multicall = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/multicall-payouts',
    headers: headers(),
    payload: { childTokens: children, requestedExecutionKind: 'evm_same_chain' },
  });
  ok(multicall, 201);
  const token = multicall.json().token as string;
  for (const url of [
    `/v2/secure-payments/multicall-payouts/${token}`,
    `/v2/secure-payments/${token}`,
    `/v2/secure-payments/${token}/pay?wallet=${creator}`,
  ]) {
    ok(await t.app.inject({ method: 'GET', url, headers: headers() }));
  }
  // A smart account's receipt of the bundle, in 0.31.0's form and in 0.13.0's (to /intent).
  const receipt = {
    chain: 'BASE',
    smartAccountAddress: creator,
    userOpHash: `0x${'ab'.repeat(32)}`,
    transactionIndices: [{ childPosition: 0, transactionIndex: 1 }],
  };
  for (const path of ['multicall-intent', 'intent']) {
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/v2/secure-payments/${token}/${path}`,
        headers: headers(),
        payload: receipt,
      }),
    );
  }
  // evm_cross_chain: the children paid from Arbitrum, each routed (Variant C with its routes).
  const routedChildren: string[] = [];
  for (const amount of ['1.5', '3']) {
    const payout = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/payouts',
      headers: headers(),
      payload: {
        recipient: accountOf(local.chain, 3).address,
        creatorWalletAddress: creator,
        network: 'base',
        currency: USDC_BASE_ID,
        amount,
      },
    });
    ok(payout, 201);
    routedChildren.push(payout.json().token);
  }
  const crossChainParent = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/multicall-payouts',
    headers: headers(),
    payload: { childTokens: routedChildren, requestedExecutionKind: 'evm_cross_chain' },
  });
  ok(crossChainParent, 201);
  const routed = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${crossChainParent.json().token}/pay?wallet=${creator}&chain=ARBITRUM&token=USDT`,
    headers: headers(),
  });
  ok(routed);
  expect(routed.json()).toMatchObject({
    executionKind: 'evm_cross_chain',
    metadata: { bridgeTxIndices: [1, 2] },
  });
  expect(routed.json().destinationCalls).toHaveLength(2);
  const refused = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/multicall-payouts',
    headers: headers(),
    payload: { childTokens: children },
  });
  expect(refused.statusCode, refused.body).toBe(400);
  expect(refused.json().failures).toHaveLength(2);
}

/**
 * Answers the recurring payout operations: creation, the signed permit, the status and a
 * cancellation.
 */
export async function recurringPayoutOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const payer = accountOf(local.chain, 2) as LocalAccount;
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/payouts',
    headers: headers(),
    payload: {
      payee: accountOf(local.chain, 1).address,
      amount: '3',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
      recurrence: {
        startDate: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
        frequency: 'WEEKLY',
        totalPayments: 4,
        payer: payer.address,
      },
    },
  });
  ok(created, 201);
  const { id, recurringPaymentPermit: permit } = created.json();
  const values = permit.values;
  const signature = await payer.signTypedData({
    domain: permit.domain,
    types: permit.types,
    primaryType: 'SchedulePermit',
    message: {
      ...values,
      amount: BigInt(values.amount),
      feeAmount: BigInt(values.feeAmount),
      relayerFee: BigInt(values.relayerFee),
      nonce: BigInt(values.nonce),
      deadline: BigInt(values.deadline),
    },
  });
  const url = `/v2/payouts/recurring/${id}`;
  ok(
    await t.app.inject({
      method: 'POST',
      url,
      headers: headers(),
      payload: { permitSignature: signature },
    }),
    201,
  );
  ok(await t.app.inject({ method: 'GET', url, headers: headers() }));
  ok(
    await t.app.inject({
      method: 'PATCH',
      url,
      headers: headers(),
      payload: { action: 'cancel' },
    }),
  );
}
