import { count, eq } from 'drizzle-orm';
import { type Address, custom, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { accountOf, type StandIn, sendAll, standIn, usdcBalance } from '../../test/chain.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { testIndexer } from '../../test/workers.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import type { Indexer } from '../detection/indexer.ts';

/**
 * The v1 request operations over HTTP on the real app, on a local EVM with the real Request
 * contracts standing in for base: a request made by v1 is read, routed and paid by v1 (the
 * transactions sent from a funded wallet, the payment found by the indexer), a recurring one
 * stopped by v1, and `POST /v1/pay` makes a request and its calldata in one call.
 */

let local: StandIn;
let t: TestApp;
let tenantA: Tenant;
let tenantB: Tenant;
let indexer: Indexer;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({ env: local.env, transports: local.transports });
  tenantA = await createTenant(t.db, 'Shop A');
  tenantB = await createTenant(t.db, 'Shop B');
  indexer = testIndexer(t, { confirmations: 0 });
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const payee = () => accountOf(local.chain, 1).address;
const payer = () => accountOf(local.chain, 2);

function api(
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: object,
  headers: Record<string, string> = { 'x-api-key': tenantA.apiKey },
) {
  return t.app.inject({ method, url, headers, ...(payload && { payload }) });
}

async function createdV1(body: Record<string, unknown> = {}) {
  const res = await api('POST', '/v1/request', {
    payee: payee(),
    amount: '12.5',
    invoiceCurrency: 'USDC-base',
    paymentCurrency: 'USDC-base',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { paymentReference: string; requestID: string };
}

interface PayAnswer {
  transactions: { to: Address; data: Hex; value: { type: string; hex: Hex }; chainType: string }[];
  metadata: Record<string, unknown> & { paymentTransactionIndex: number };
}

/** Every transaction as a wallet sends it: the approval first, then the payment. */
function sendable(answer: PayAnswer) {
  return answer.transactions.map((tx) => ({
    to: tx.to,
    data: tx.data,
    value: tx.value.hex,
    chainId: local.chain.chainId,
  }));
}

async function requestCount(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(requests);
  return row?.n ?? 0;
}

describe('v1 requests, created, read, routed and paid by v1', () => {
  it('creates by v1, reads it, pays it with v1’s /pay on chain, and reads it paid', async () => {
    const created = await createdV1();
    expect(Object.keys(created).sort()).toEqual(['paymentReference', 'requestID']);
    expect(created.paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    const ref = created.paymentReference;

    const before = await api('GET', `/v1/request/${ref}`);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({
      hasBeenPaid: false,
      paymentReference: ref,
      requestId: created.requestID,
      requestAmount: '12.5',
      isListening: true,
      payments: [],
    });

    // The routes are v2's, for the same request.
    const wallet = payer().address;
    const routes = await api('GET', `/v1/request/${ref}/routes?wallet=${wallet}`);
    expect(routes.statusCode, routes.body).toBe(200);
    const v2Routes = await api('GET', `/v2/request/${created.requestID}/routes?wallet=${wallet}`);
    expect(routes.json()).toEqual(v2Routes.json());
    expect(routes.json().routes[0]).toMatchObject({ id: 'REQUEST_NETWORK_PAYMENT', chain: 'BASE' });

    const pay = await api('GET', `/v1/request/${ref}/pay?wallet=${wallet}`);
    expect(pay.statusCode, pay.body).toBe(200);
    const answer = pay.json() as PayAnswer;
    expect(answer.transactions).toHaveLength(2);
    for (const tx of answer.transactions) {
      expect(tx.chainType).toBe('evm');
      expect(tx.value).toEqual({ type: 'BigNumber', hex: '0x0' });
    }
    expect(answer.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      paymentTransactionIndex: 1,
      hasEnoughBalance: true,
      hasEnoughGas: true,
      routeType: 'samechain',
    });

    const balance = await usdcBalance(local.chain, payee());
    const hashes = await sendAll(local.chain, payer(), sendable(answer));
    expect((await usdcBalance(local.chain, payee())) - balance).toBe(12_500_000n);
    expect((await indexer.tick()).recorded).toBe(1);

    const after = await api('GET', `/v1/request/${ref}`);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toEqual({
      hasBeenPaid: true,
      paymentReference: ref,
      requestId: created.requestID,
      requestAmount: '12.5',
      isListening: false,
      payments: [
        {
          sourceTxHash: hashes[1],
          destinationTxHash: null,
          detectionSource: 'request-network',
          note: null,
        },
      ],
    });
    // Paid: v1's /pay refuses as v2's does.
    const again = await api('GET', `/v1/request/${ref}/pay`);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('request_paid');
  });

  it('takes the reference with or without 0x, in any case; other text is not found', async () => {
    const { paymentReference: ref, requestID } = await createdV1({ amount: '1' });
    for (const form of [ref.slice(2), ref.toUpperCase().replace('0X', '0x')]) {
      const res = await api('GET', `/v1/request/${form}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().requestId).toBe(requestID);
    }
    for (const form of [requestID, `${ref}00`, 'nothing', '0x']) {
      const res = await api('GET', `/v1/request/${form}`);
      expect(res.statusCode, form).toBe(404);
      expect(res.json().code).toBe('request_not_found');
    }
  });

  it('pays part of the amount with `amount`, and refuses a cross-chain source it cannot route as v2 does', async () => {
    const { paymentReference: ref } = await createdV1({ amount: '10' });
    const part = await api('GET', `/v1/request/${ref}/pay?amount=4`);
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json().metadata).toMatchObject({ requiredAmount: '4' });
    // No chain here but the request's: a source the server cannot reach is refused by name.
    const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const cross = await api(
      'GET',
      `/v1/request/${ref}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDC`,
    );
    expect(cross.statusCode).toBe(400);
    expect(cross.json().code).toBe('crosschain_unavailable');
    // A chain or token outside the reference's enums: one error each, naming what is accepted.
    const CHAIN = {
      field: 'chain',
      message: 'must be one of BASE, OPTIMISM, ARBITRUM, ETHEREUM, SANDBOX, SANDBOX_B',
    };
    const TOKEN = { field: 'token', message: 'must be one of USDC, USDT' };
    for (const [query, errors] of [
      ['chain=base', [CHAIN]],
      ['chain=base&token=USDC', [CHAIN]],
      ['chain=SOLANA&token=usdc', [CHAIN, TOKEN]],
      ['token=DAI', [TOKEN]],
      ['chain=BASE&chain=BASE', [CHAIN]],
      ['chain=&amount=4', [CHAIN]],
    ] as const) {
      const wrong = await api('GET', `/v1/request/${ref}/pay?${query}`);
      expect(wrong.statusCode, query).toBe(400);
      expect(wrong.json(), query).toEqual({
        statusCode: 400,
        message: 'Validation failed',
        error: 'Bad Request',
        code: 'validation_failed',
        errors,
      });
    }
    // v1 declares no fee parameters on /pay: like any unknown query parameter, they are ignored.
    const fee = await api('GET', `/v1/request/${ref}/pay?feePercentage=1&feeAddress=${payee()}`);
    expect(fee.statusCode, fee.body).toBe(200);
    expect(fee.json().transactions).toEqual(
      (await api('GET', `/v1/request/${ref}/pay`)).json().transactions,
    );
  });

  it('routes carry the platform fee asked for, as v2’s do', async () => {
    const { paymentReference: ref } = await createdV1({ amount: '10' });
    const res = await api(
      'GET',
      `/v1/request/${ref}/routes?wallet=${payer().address}&feePercentage=1.5&feeAddress=${payee()}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().routes[0].fee).toBe(0.15);
    expect(res.json().platformFee).toEqual({ percentage: 1.5, address: payee() });
    const missing = await api('GET', `/v1/request/${ref}/routes`);
    expect(missing.statusCode).toBe(400);
  });

  it('refuses bad bodies and other credentials, writing nothing', async () => {
    const n = await requestCount();
    const bodies = [
      { amount: '1', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' },
      { payee: payee(), amount: '1', invoiceCurrency: 'USDC-base', paymentCurrency: 'NOPE' },
      {
        payee: payee(),
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        recurrence: { startDate: '2020-01-01', frequency: 'MONTHLY' },
      },
    ];
    for (const body of bodies) {
      const res = await api('POST', '/v1/request', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      // /v1/pay takes no recurrence: that field is ignored there, as any unknown one.
      if ('recurrence' in body) continue;
      const paid = await api('POST', '/v1/pay', body);
      expect(paid.statusCode, JSON.stringify(body)).toBe(400);
    }
    // v1 takes an API key only, as the reference.
    const asClient = await api(
      'POST',
      '/v1/request',
      { payee: payee(), amount: '1', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' },
      { 'x-client-id': tenantA.backendClientId },
    );
    expect(asClient.statusCode).toBe(403);
    expect(await requestCount()).toBe(n);
  });

  it('answers another account’s reference as a missing one, on every route', async () => {
    const { paymentReference: ref } = await createdV1({
      amount: '3',
      recurrence: { startDate: '2026-12-01', frequency: 'MONTHLY' },
    });
    const asB = { 'x-api-key': tenantB.apiKey };
    const calls = [
      api('GET', `/v1/request/${ref}`, undefined, asB),
      api('GET', `/v1/request/${ref}/pay`, undefined, asB),
      api('GET', `/v1/request/${ref}/routes?wallet=${payer().address}`, undefined, asB),
      api('PATCH', `/v1/request/${ref}/stop-recurrence`, undefined, asB),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().code).toBe('request_not_found');
      expect(res.body).not.toContain(ref.slice(2));
    }
    const status = await api('GET', `/v1/request/${ref}`);
    expect(status.json().hasBeenPaid).toBe(false);
  });
});

describe('PATCH /v1/request/{paymentReference}/stop-recurrence', () => {
  it('stops the series of a recurring request made by v1, with 200 and no body', async () => {
    const { paymentReference: ref, requestID } = await createdV1({
      amount: '5',
      recurrence: { startDate: '2026-12-01', frequency: 'WEEKLY' },
    });
    const v2 = () => api('GET', `/v2/request/${requestID}`);
    expect((await v2()).json()).toMatchObject({
      isRecurrenceStopped: false,
      recurrence: { frequency: 'WEEKLY' },
    });
    for (let i = 0; i < 2; i += 1) {
      // Stopping a stopped series changes nothing and answers the same.
      const res = await api('PATCH', `/v1/request/${ref}/stop-recurrence`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).toBe('');
    }
    expect((await v2()).json().isRecurrenceStopped).toBe(true);
    const [row] = await t.db
      .select({ id: requests.id })
      .from(requests)
      .where(eq(requests.requestId, requestID));
    const [schedule] = await t.db
      .select()
      .from(requestSchedules)
      .where(eq(requestSchedules.requestRowId, row?.id ?? ''));
    expect(schedule?.stopped).toBe(true);
  });

  it('answers 400 request_not_recurring for a request of no series', async () => {
    const { paymentReference: ref } = await createdV1({ amount: '2' });
    const res = await api('PATCH', `/v1/request/${ref}/stop-recurrence`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('request_not_recurring');
  });
});

describe('POST /v1/pay', () => {
  it('creates the request and returns its calldata, which pays it on chain', async () => {
    const res = await api('POST', '/v1/pay', {
      payee: payee(),
      amount: '7.25',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as PayAnswer & {
      requestId: string;
      requestID: string;
      paymentReference: string;
    };
    expect(body.requestID).toBe(body.requestId);
    expect(body.paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      hasEnoughBalance: true,
      hasEnoughGas: true,
    });
    const status = await api('GET', `/v1/request/${body.paymentReference}`);
    expect(status.json()).toMatchObject({ requestId: body.requestId, requestAmount: '7.25' });

    const balance = await usdcBalance(local.chain, payee());
    await sendAll(local.chain, payer(), sendable(body));
    expect((await usdcBalance(local.chain, payee())) - balance).toBe(7_250_000n);
    expect((await indexer.tick()).recorded).toBe(1);
    const paid = await api('GET', `/v1/request/${body.paymentReference}`);
    expect(paid.json()).toMatchObject({ hasBeenPaid: true, isListening: false });
  });
});

describe('POST /v1/pay when no calldata can be made', () => {
  it('keeps no request: the chain that a fiat invoice’s rate is read from is down', async () => {
    // A fault injected where the chain is reached: every JSON-RPC call fails.
    const down = await createTestApp({
      transports: {
        base: custom({
          request: async () => {
            throw new Error('connection refused');
          },
        }),
      },
    });
    try {
      const tenant = await createTenant(down.db, 'Shop C');
      const res = await down.app.inject({
        method: 'POST',
        url: '/v1/pay',
        headers: { 'x-api-key': tenant.apiKey },
        payload: {
          payee: accountOf(local.chain, 1).address,
          amount: '20',
          invoiceCurrency: 'USD',
          paymentCurrency: 'USDC-base',
        },
      });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(500);
      const [row] = await down.db
        .select({ n: count() })
        .from(requests)
        .where(eq(requests.accountId, tenant.accountId));
      expect(row?.n).toBe(0);
    } finally {
      await down.close();
    }
  });
});
