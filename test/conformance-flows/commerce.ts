import type { Hex } from 'viem';
import { expect } from 'vitest';
import { accountOf, sendAll } from '../chain.ts';
import { insertPayer, transferCount } from '../offramp-world.ts';
import { COMMERCE_BUYER, type ConformanceWorld, USDC_BASE_ID } from './world.ts';

/** The conformance flows of journeys, commerce escrow and crypto-to-fiat. */

/** Answers the journey operations with the fields of the reference’s examples. */
export async function journeyOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const request = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '4',
      invoiceCurrency: USDC_BASE_ID,
      paymentCurrency: USDC_BASE_ID,
      payee: accountOf(local.chain, 1).address,
    },
  });
  ok(request, 201);
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/journey',
    headers: headers(),
    payload: { requestId: request.json().requestId },
  });
  ok(created, 201);
  const journeyId = created.json().journeyId as string;
  expect(Object.keys(created.json())).toEqual(['journeyId']);
  const step = await t.app.inject({
    method: 'POST',
    url: `/v2/journey/${journeyId}`,
    headers: headers(),
    payload: {
      status: 'completed',
      amount: '4.00',
      currency: 'EUR',
      txReference: 'SEPA-0042',
      processedAt: '2026-11-22T12:30:00Z',
      rawPayload: { exchange: 'Bitstamp', network: 'sepa', fee: '0.02', note: 'paid out' },
      nextProcessorId: 'bank',
    },
  });
  ok(step, 201);
  // The example's members (0.31.0 gives the answers no schema, only examples).
  expect(Object.keys(step.json())).toEqual(
    expect.arrayContaining([
      'id',
      'journeyId',
      'processorId',
      'status',
      'amount',
      'currency',
      'txReference',
      'processedAt',
      'rawPayload',
    ]),
  );
  const read = await t.app.inject({
    method: 'GET',
    url: `/v2/journey/${journeyId}`,
    headers: headers(),
  });
  ok(read);
  expect(read.json()).toMatchObject({
    id: journeyId,
    requestId: request.json().requestId,
    createdAt: expect.any(String),
  });
  for (const event of read.json().events) {
    expect(Object.keys(event)).toEqual(
      expect.arrayContaining([
        'id',
        'stepIndex',
        'status',
        'amount',
        'currency',
        'processedAt',
        'txReference',
        'rawPayload',
      ]),
    );
  }
}

/** Answers the commerce operations: calldata, authorize, status, capture and void. */
export async function commerceOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, headers, ok } = world;
  const commerce = (path: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/commerce-payments/${path}`,
      headers: headers(),
      payload,
    });
  // Long expiries: the chain keeps the machine's time, the test clock an earlier one.
  const created = await commerce('authorize/calldata', {
    merchantId: 'shop-7',
    merchantAddress: accountOf(local.chain, 2).address,
    buyerAddress: accountOf(local.chain, COMMERCE_BUYER).address,
    amount: '20',
    paymentCurrency: USDC_BASE_ID,
    preApprovalExpiry: 30 * 86_400,
    authorizationExpiry: 60 * 86_400,
  });
  ok(created, 201);
  const { requestId, transactions } = created.json();
  // The buyer approves the wrapper and pre-approves the terms; the operator authorizes.
  await sendAll(
    local.chain,
    accountOf(local.chain, COMMERCE_BUYER),
    transactions.map((tx: { to: Hex; data: Hex; value: { hex: Hex } }) => ({
      to: tx.to,
      data: tx.data,
      value: tx.value.hex,
      chainId: local.chain.chainId,
    })),
  );
  ok(
    await t.app.inject({
      method: 'GET',
      url: `/v2/commerce-payments/${requestId}/status`,
      headers: headers(),
    }),
  );
  ok(await commerce(`${requestId}/authorize`, {}));
  ok(await commerce(`${requestId}/capture/calldata`, { captureAmount: '5' }));
  ok(await commerce(`${requestId}/capture`, { captureAmount: '5' }));
  ok(await commerce(`${requestId}/void/calldata`, {}));
  const voided = await commerce(`${requestId}/void`, { reason: 'out of stock' });
  ok(voided);
  expect(voided.json()).toMatchObject({ status: 'PAID', voidedAmount: '15' });
}

/**
 * Answers crypto-to-fiat: a request with no payee, its /pay to the deposit address, and each
 * refusal.
 */
export async function cryptoToFiatOperations(world: ConformanceWorld): Promise<void> {
  const { local, t, tenant, offramp, headers, ok } = world;
  const USDC_ARBITRUM = 'USDC-arbitrum-one';
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '4',
      invoiceCurrency: USDC_ARBITRUM,
      paymentCurrency: USDC_ARBITRUM,
      isCryptoToFiatAvailable: true,
    },
  });
  ok(created, 201);
  const requestId = created.json().requestId as string;
  const status = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: headers(),
  });
  ok(status);
  expect(status.json()).toMatchObject({
    isCryptoToFiatAvailable: true,
    payee: '0x0000000000000000000000000000000000000000',
    status: 'pending',
    hasBeenPaid: false,
    offrampStatus: null,
  });
  const pay = (query: Record<string, string>, id = requestId) =>
    t.app.inject({
      method: 'GET',
      url: `/v2/request/${id}/pay?${new URLSearchParams(query)}`,
      headers: headers(),
    });
  const db = { t };
  const mine = await insertPayer(db, tenant.accountId, 'c2f-compliant');
  const kyc = await insertPayer(db, tenant.accountId, 'c2f-kyc-pending', { kyc: 'pending' });
  const details = await insertPayer(db, tenant.accountId, 'c2f-details-pending', {
    details: 'pending',
  });
  // The reference's calldata answer: the approval and the payment, to the deposit address.
  const paid = await pay({
    clientUserId: 'c2f-compliant',
    paymentDetailsId: mine.paymentDetailsId,
  });
  ok(paid);
  const [transfer] = [...offramp.transfers.values()].filter(
    (tr) => tr.clientReferenceId === requestId,
  );
  expect(transfer).toMatchObject({ rail: 'arbitrum', currency: 'usdc', amount: '4' });
  expect(paid.json()).toMatchObject({
    transactions: expect.any(Array),
    metadata: expect.any(Object),
  });
  expect(paid.json().transactions.at(-1).data.toLowerCase()).toContain(
    transfer?.depositAddress.slice(2).toLowerCase(),
  );
  const before = await transferCount(db);
  const plain = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: {
      amount: '4',
      invoiceCurrency: USDC_ARBITRUM,
      paymentCurrency: USDC_ARBITRUM,
      payee: accountOf(local.chain, 1).address,
    },
  });
  ok(plain, 201);
  const refusals: [Record<string, string>, string | undefined, number, string, string][] = [
    [
      { clientUserId: 'c2f-kyc-pending', paymentDetailsId: kyc.paymentDetailsId },
      undefined,
      400,
      'payer_not_compliant',
      'Payer c2f-kyc-pending is not compliant: its KYC must be approved and its agreement completed',
    ],
    [
      { clientUserId: 'c2f-details-pending', paymentDetailsId: details.paymentDetailsId },
      undefined,
      400,
      'payment_details_not_usable',
      `Payment details ${details.paymentDetailsId} are not approved yet`,
    ],
    [
      { clientUserId: 'c2f-compliant', paymentDetailsId: kyc.paymentDetailsId },
      undefined,
      400,
      'payment_details_not_usable',
      `Payment details ${kyc.paymentDetailsId} are not this payer's`,
    ],
    [
      { clientUserId: 'c2f-compliant', paymentDetailsId: mine.paymentDetailsId },
      plain.json().requestId,
      400,
      'crypto_to_fiat_not_allowed',
      'This request does not allow crypto-to-fiat payments: create it with isCryptoToFiatAvailable: true',
    ],
    [
      { clientUserId: 'c2f-nobody', paymentDetailsId: mine.paymentDetailsId },
      undefined,
      404,
      'payer_not_found',
      'Payer with client user ID c2f-nobody not found',
    ],
    [
      { clientUserId: 'c2f-compliant', paymentDetailsId: 'not-a-uuid' },
      undefined,
      400,
      'validation_failed',
      'Validation failed',
    ],
    [{ clientUserId: 'c2f-compliant' }, undefined, 400, 'validation_failed', 'Validation failed'],
    [
      { paymentDetailsId: mine.paymentDetailsId },
      undefined,
      400,
      'validation_failed',
      'Validation failed',
    ],
  ];
  for (const [query, id, statusCode, code, message] of refusals) {
    const res = await pay(query, id);
    const name = `${JSON.stringify(query)}: ${res.body}`;
    expect(res.statusCode, name).toBe(statusCode);
    expect(res.json(), name).toMatchObject({
      statusCode,
      code,
      message,
      error: statusCode === 404 ? 'Not Found' : 'Bad Request',
    });
    if (code === 'validation_failed') {
      expect(res.json().errors, name).toEqual([
        expect.objectContaining({ field: expect.any(String), message: expect.any(String) }),
      ]);
    }
  }
  // Refused before the provider is asked: no transfer made.
  expect(await transferCount(db)).toBe(before);
}
