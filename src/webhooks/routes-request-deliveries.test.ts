import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { payments, requests, webhookDeliveries, webhooks } from '../db/schema.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { searchColumnsOf } from '../payments/records.ts';

/**
 * `GET /v2/dashboard/deliveries?requestId=`: the webhooks a request's payments caused, from
 * rows as detection and the outbox write them; the account's endpoints only, never a
 * platform's, and nothing of another account's request.
 */

const PAYEE = '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97';

let t: TestApp;
let shop: Tenant;
let other: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Shop');
  other = await createTenant(t.db, 'Other shop');
});
afterAll(() => t.close());

async function paidRequest(tenant: Tenant, logIndex: number) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: { 'x-api-key': tenant.apiKey },
    payload: {
      amount: '25',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: PAYEE,
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const { requestId } = created.json();
  const [request] = await t.db.select().from(requests).where(eq(requests.requestId, requestId));
  if (!request) throw new Error('no request');
  const [payment] = await t.db
    .insert(payments)
    .values({
      accountId: tenant.accountId,
      requestRowId: request.id,
      ...searchColumnsOf(request),
      network: 'base',
      txHash: `0x${'ab'.repeat(32)}`,
      logIndex,
      blockNumber: 1234n,
      blockHash: `0x${'cd'.repeat(32)}`,
      amount: 25_000_000n,
      feeAmount: 0n,
      payee: PAYEE,
      paymentReference: request.paymentReference,
      timestamp: new Date('2026-11-22T12:00:00Z'),
    })
    .returning();
  if (!payment) throw new Error('no payment');
  return { requestId: requestId as string, paymentId: payment.id };
}

function read(requestId: string, tenant = shop) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/dashboard/deliveries?requestId=${requestId}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

describe('GET /v2/dashboard/deliveries', () => {
  it('lists the account’s deliveries of a request’s payments, newest first, no platform’s', async () => {
    const paid = await paidRequest(shop, 1);
    const theirs = await paidRequest(other, 2);
    const { orchestratorId } = await createOrchestrator(t.db, 'Platform');
    await t.db.insert(webhooks).values([
      {
        id: 'whk_shop',
        accountId: shop.accountId,
        url: 'https://shop.example/h',
        secretSealed: 'x',
      },
      {
        id: 'whk_other',
        accountId: other.accountId,
        url: 'https://other.example/h',
        secretSealed: 'x',
      },
      { id: 'whk_platform', orchestratorId, url: 'https://platform.example/h', secretSealed: 'x' },
    ]);
    const at = new Date('2026-11-22T12:00:05Z');
    const delivery = (id: string, webhookId: string, paymentId: string, event: string) => ({
      id,
      webhookId,
      event,
      body: '{}',
      paymentId,
      nextAttemptAt: at,
      createdAt: at,
    });
    await t.db.insert(webhookDeliveries).values([
      {
        ...delivery('01JDX00000000000000000000A', 'whk_shop', paid.paymentId, 'payment.confirmed'),
        status: 'failed' as const,
        attempts: 8,
        lastStatusCode: 503,
        lastError: 'answered 503',
      },
      {
        ...delivery('01JDX00000000000000000000B', 'whk_shop', paid.paymentId, 'request.paid'),
        status: 'delivered' as const,
        attempts: 1,
        lastStatusCode: 200,
        deliveredAt: at,
      },
      delivery('01JDX00000000000000000000C', 'whk_platform', paid.paymentId, 'payment.confirmed'),
      delivery('01JDX00000000000000000000D', 'whk_other', theirs.paymentId, 'payment.confirmed'),
    ]);

    const res = await read(paid.requestId.toUpperCase());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().deliveries).toEqual([
      {
        id: '01JDX00000000000000000000B',
        webhookId: 'whk_shop',
        url: 'https://shop.example/h',
        event: 'request.paid',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        createdAt: at.toISOString(),
        deliveredAt: at.toISOString(),
      },
      expect.objectContaining({
        id: '01JDX00000000000000000000A',
        status: 'failed',
        attempts: 8,
        lastStatusCode: 503,
        lastError: 'answered 503',
        deliveredAt: null,
      }),
    ]);
    // Another account's request: as unknown as one that does not exist.
    expect((await read(theirs.requestId)).json()).toEqual({ deliveries: [] });
    expect((await read(theirs.requestId, other)).json().deliveries).toHaveLength(1);
  });

  it('needs a request id', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/dashboard/deliveries',
      headers: { 'x-api-key': shop.apiKey },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'requestId', message: 'is required' }]);
  });
});
